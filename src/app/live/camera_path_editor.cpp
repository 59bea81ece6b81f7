#include "app/live/camera_path_editor.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "io/input_file.h"
#include "io/output_file.h"

namespace nbody {

void CameraPathEditor::add(const Camera& camera, double spacingSeconds) {
  if (!std::isfinite(spacingSeconds) || spacingSeconds <= 0.0)
    throw std::invalid_argument("keyframes must be a positive number of seconds apart, not " +
                                std::to_string(spacingSeconds));
  CameraKeyframe keyframe;
  keyframe.seconds = keyframes_.empty() ? 0.0 : keyframes_.back().seconds + spacingSeconds;
  keyframe.yawDegrees = camera.yawDegrees;
  keyframe.pitchDegrees = camera.pitchDegrees;
  keyframe.distance = camera.distance;
  if (keyframes_.empty() || keyframes_.front().target) keyframe.target = camera.target;
  keyframes_.push_back(keyframe);
}

void CameraPathEditor::remove(std::size_t index) {
  if (index < keyframes_.size()) keyframes_.erase(keyframes_.begin() + std::ptrdiff_t(index));
}

// Read by this process alone: under mpiexec only rank 0's window edits a path.
void CameraPathEditor::load(const std::filesystem::path& file) {
  keyframes_ = parseCameraPath(readInputFileHere(file, InputKinds::editedInPlace), file.string())
                   .keyframes();
}

void CameraPathEditor::save(const std::filesystem::path& file) const {
  const std::optional<CameraPath> path = this->path();
  if (!path) throw std::runtime_error("no keyframe to save: add one first (K)");
  OutputFile out(file);
  out.stream() << formatCameraPath(*path);
  out.commit();
}

std::optional<CameraPath> CameraPathEditor::path() const {
  if (keyframes_.empty()) return std::nullopt;
  return CameraPath(keyframes_);
}

}  // namespace nbody
