#pragma once
// The window's camera path as it is being made: keyframes taken from the camera the window shows
// (key K or the panel's button), a chosen number of seconds apart, listed and removed in the panel,
// saved to and loaded from the text file that `run --camera-path` and `record --camera-path` read
// (render/camera_path.h). No window or GL here: the window app drives it.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "render/camera.h"
#include "render/camera_path.h"

namespace nbody {

class CameraPathEditor {
 public:
  CameraPathEditor() = default;
  // Editing a path's keyframes (run --camera-path's).
  explicit CameraPathEditor(std::vector<CameraKeyframe> keyframes)
      : keyframes_(std::move(keyframes)) {}

  // The camera as the next keyframe, `spacingSeconds` (> 0) after the last one (the first at 0 s),
  // aimed at the camera's target, unless the keyframes have no targets (a file loaded without):
  // a path's keyframes have targets on all or on none. Throws std::invalid_argument for a spacing
  // that is not a positive number.
  void add(const Camera& camera, double spacingSeconds);
  // Keyframe `index` (0-based) gone; the others keep their times. Past the end: nothing.
  void remove(std::size_t index);
  void clear() { keyframes_.clear(); }
  // The keyframes of a path file (render/camera_path.h) replace these; throws std::runtime_error
  // saying why, keeping these.
  void load(const std::filesystem::path& file);
  // Writes the path's file, whole or not at all; throws saying why (none when there is no
  // keyframe).
  void save(const std::filesystem::path& file) const;

  const std::vector<CameraKeyframe>& keyframes() const { return keyframes_; }
  // The path through the keyframes; none without keyframes.
  std::optional<CameraPath> path() const;

 private:
  std::vector<CameraKeyframe> keyframes_;
};

}  // namespace nbody
