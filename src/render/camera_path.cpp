#include "render/camera_path.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "io/input_file.h"
#include "util/number_text.h"

namespace nbody {
namespace {

// What the curve interpolates: yaw, pitch, log(distance) and the target's x, y, z.
constexpr std::size_t kChannels = 6;
using Channels = std::array<double, kChannels>;

Channels channelsOf(const CameraKeyframe& k) {
  const glm::vec3 target = k.target.value_or(glm::vec3(0.0f));
  return {k.yawDegrees, k.pitchDegrees, std::log(double(k.distance)), target.x, target.y, target.z};
}

CameraKeyframe keyframeOf(double seconds, const Channels& c, bool withTarget) {
  CameraKeyframe k;
  k.seconds = seconds;
  k.yawDegrees = float(c[0]);
  k.pitchDegrees =
      std::clamp(float(c[1]), -90.0f, 90.0f);  // the curve may overshoot a keyframe's 90
  k.distance = float(std::exp(c[2]));
  if (withTarget) k.target = glm::vec3(float(c[3]), float(c[4]), float(c[5]));
  return k;
}

bool finite(glm::vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

// What is wrong with keyframe `k` after `before` (none: the first) in a path whose first keyframe
// has a target or not; empty where nothing is.
std::string problemWith(const CameraKeyframe& k, const CameraKeyframe* before, bool targets) {
  if (!std::isfinite(k.seconds)) return "its time is not finite";
  if (before && !(k.seconds > before->seconds))
    return "its time " + shortNumber(k.seconds) + " is not after the keyframe before's (" +
           shortNumber(before->seconds) + ")";
  if (!std::isfinite(k.yawDegrees)) return "its yaw is not finite";
  if (!(k.pitchDegrees >= -90.0f && k.pitchDegrees <= 90.0f))
    return "its pitch must be in [-90, 90]";
  if (!(k.distance > 0.0f) || !std::isfinite(k.distance)) return "its distance must be > 0";
  if (k.target.has_value() != targets) return "targets go on every keyframe or on none";
  if (k.target && !finite(*k.target)) return "its target is not finite";
  return {};
}

// The tangent of channel `c` at keyframe `i`: Catmull-Rom's, one-sided at the ends.
double tangent(const std::vector<Channels>& points, const std::vector<CameraKeyframe>& keys,
               std::size_t i, std::size_t c) {
  const std::size_t from = i == 0 ? 0 : i - 1, to = std::min(i + 1, keys.size() - 1);
  return (points[to][c] - points[from][c]) / (keys[to].seconds - keys[from].seconds);
}

// One keyframe from a line's fields: SECONDS YAW PITCH DISTANCE [TX TY TZ].
CameraKeyframe keyframeFrom(const std::vector<std::string>& fields) {
  if (fields.size() != 4 && fields.size() != 7)
    throw std::invalid_argument("expected SECONDS YAW PITCH DISTANCE [TX TY TZ], got " +
                                std::to_string(fields.size()) + " fields");
  const auto read = [&](std::size_t i, auto& value) {
    if (const std::string complaint = readNumber(fields[i], NumberBounds{}, value);
        !complaint.empty())
      throw std::invalid_argument(complaint);
  };
  CameraKeyframe k;
  read(0, k.seconds);
  read(1, k.yawDegrees);
  read(2, k.pitchDegrees);
  read(3, k.distance);
  if (fields.size() == 7) {
    glm::vec3 target;
    for (int axis = 0; axis < 3; ++axis) read(std::size_t(4 + axis), target[axis]);
    k.target = target;
  }
  return k;
}

// The words of a line before a `#`, which starts a comment wherever it stands.
std::vector<std::string> fieldsOf(const std::string& line) {
  std::istringstream words(line.substr(0, line.find('#')));
  std::vector<std::string> fields;
  for (std::string word; words >> word;) fields.push_back(word);
  return fields;
}

}  // namespace

CameraPath::CameraPath(std::vector<CameraKeyframe> keyframes) : keyframes_(std::move(keyframes)) {
  if (keyframes_.empty()) throw std::invalid_argument("a camera path needs a keyframe");
  for (std::size_t i = 0; i < keyframes_.size(); ++i)
    if (const std::string why =
            problemWith(keyframes_[i], i > 0 ? &keyframes_[i - 1] : nullptr, hasTargets());
        !why.empty())
      throw std::invalid_argument("keyframe " + std::to_string(i + 1) + ": " + why);
}

CameraKeyframe CameraPath::at(double seconds) const {
  const auto after =
      std::upper_bound(keyframes_.begin(), keyframes_.end(), seconds,
                       [](double s, const CameraKeyframe& k) { return s < k.seconds; });
  if (after == keyframes_.begin()) return keyframes_.front();
  const std::size_t i = std::size_t(after - keyframes_.begin()) - 1;
  if (after == keyframes_.end() || keyframes_[i].seconds == seconds) return keyframes_[i];
  std::vector<Channels> points;
  for (const CameraKeyframe& k : keyframes_) points.push_back(channelsOf(k));
  const double h = keyframes_[i + 1].seconds - keyframes_[i].seconds,
               u = (seconds - keyframes_[i].seconds) / h;
  const double h00 = (2 * u - 3) * u * u + 1, h10 = ((u - 2) * u + 1) * u,
               h01 = (3 - 2 * u) * u * u, h11 = (u - 1) * u * u;
  Channels c;
  for (std::size_t k = 0; k < kChannels; ++k)
    c[k] = h00 * points[i][k] + h10 * h * tangent(points, keyframes_, i, k) +
           h01 * points[i + 1][k] + h11 * h * tangent(points, keyframes_, i + 1, k);
  return keyframeOf(seconds, c, hasTargets());
}

CameraPath parseCameraPath(std::string_view text, const std::string& source) {
  std::vector<CameraKeyframe> keyframes;
  std::istringstream lines{std::string(text)};
  int number = 0;
  if (text.starts_with("\xef\xbb\xbf"))
    throw std::runtime_error(
        source +
        ":1: the file starts with a UTF-8 byte-order mark (EF BB BF): save it without one");
  for (std::string line; std::getline(lines, line);) {
    ++number;
    const std::vector<std::string> fields = fieldsOf(line);
    if (fields.empty()) continue;
    try {
      keyframes.push_back(keyframeFrom(fields));
      const CameraKeyframe* before =
          keyframes.size() > 1 ? &keyframes[keyframes.size() - 2] : nullptr;
      if (const std::string why =
              problemWith(keyframes.back(), before, keyframes.front().target.has_value());
          !why.empty())
        throw std::invalid_argument(why);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(source + ":" + std::to_string(number) + ": " + e.what());
    }
  }
  if (keyframes.empty())
    throw std::runtime_error(source + ": no keyframe (SECONDS YAW PITCH DISTANCE [TX TY TZ])");
  return CameraPath(std::move(keyframes));
}

std::string formatCameraPath(const CameraPath& path) {
  std::string text = "# SECONDS YAW PITCH DISTANCE [TX TY TZ]\n";
  char line[256];
  for (const CameraKeyframe& k : path.keyframes()) {
    std::snprintf(line, sizeof line, "%.17g %.9g %.9g %.9g", k.seconds, k.yawDegrees,
                  k.pitchDegrees, k.distance);
    text += line;
    if (k.target) {
      std::snprintf(line, sizeof line, " %.9g %.9g %.9g", k.target->x, k.target->y, k.target->z);
      text += line;
    }
    text += '\n';
  }
  return text;
}

CameraPath readCameraPathFile(const std::filesystem::path& path) {
  return parseCameraPath(readInputFile(path, InputKinds::editedInPlace), path.string());
}

void placeOnPath(Camera& camera, const CameraKeyframe& k) {
  camera.yawDegrees = k.yawDegrees;
  camera.pitchDegrees = k.pitchDegrees;
  camera.distance = k.distance;
  if (k.target) camera.target = *k.target;
}

}  // namespace nbody
