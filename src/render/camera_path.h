#pragma once
// A camera path for movies: keyframes at times (seconds of movie time), each a direction, a
// distance and optionally a target, and the camera between them on a smooth curve through every
// one (a cubic Hermite spline with Catmull-Rom tangents, the distance interpolated as its logarithm
// so that it stays > 0). Before the first keyframe and after the last the camera holds there.
// `record --camera-path FILE` films along one. The file is text, a keyframe a line:
//
//   # SECONDS YAW PITCH DISTANCE [TX TY TZ]
//   0   30 20 17
//   4  120 10 12
//
// blank lines and lines starting with # aside. Without a target the camera aims where the caller
// aims it (record: at the centre of mass); targets are on every keyframe or on none.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <glm/vec3.hpp>

#include "render/camera.h"

namespace nbody {

struct CameraKeyframe {
  double seconds = 0.0;
  float yawDegrees = 0.0f, pitchDegrees = 0.0f;  // pitch in [-90, 90]
  float distance = 1.0f;                         // > 0
  std::optional<glm::vec3> target;

  bool operator==(const CameraKeyframe&) const = default;
};

class CameraPath {
 public:
  // Throws std::invalid_argument naming the keyframe (1-based) and the problem: none at all, times
  // not increasing or not finite, a pitch or distance out of range, targets on some keyframes only.
  explicit CameraPath(std::vector<CameraKeyframe> keyframes);

  const std::vector<CameraKeyframe>& keyframes() const { return keyframes_; }
  bool hasTargets() const { return keyframes_.front().target.has_value(); }
  // The camera at `seconds`: a keyframe's own values at its time, the curve between.
  CameraKeyframe at(double seconds) const;

 private:
  std::vector<CameraKeyframe> keyframes_;
};

// The file's text; throws std::runtime_error "SOURCE:LINE: what is wrong" (SOURCE alone for a path
// with no keyframe or a problem between keyframes).
CameraPath parseCameraPath(std::string_view text, const std::string& source);
// Text that parseCameraPath reads back to the same path, bit for bit.
std::string formatCameraPath(const CameraPath& path);
// The file at `path` (read by rank 0 under mpiexec), parsed; throws std::runtime_error saying why
// not.
CameraPath readCameraPathFile(const std::filesystem::path& path);

// The camera at keyframe `k`: its direction and distance, and its target where it has one (the
// camera keeps its own otherwise).
void placeOnPath(Camera& camera, const CameraKeyframe& k);

}  // namespace nbody
