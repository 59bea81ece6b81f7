#pragma once
// The window's Record button (and its key): films what the window shows, with or without the
// panel, into an MP4 (nbody-YYYYMMDD-HHMMSS.mp4 in the current folder, or `run --record FILE`).
// The pictures go through MovieRecorder (pixel-buffer ring, encoder thread), so filming costs the
// simulation little. The movie runs at the wall clock's pace: a picture is taken whenever a new
// 60th of a second began since the last, and shown from then on, so a window slower than 60
// frames/s shows each picture longer and a faster one leaves some out; the window's last frame
// (run --frames) is always filmed, so the movie ends with what the window showed last.
//
// The session calls capture() twice a frame, once after drawing the bodies and once after the
// panel; the recorder takes the picture at the stage it films.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <glm/vec2.hpp>

#include "app/run/movie_recorder.h"
#include "app/window/window_capture.h"

namespace nbody {

class WindowRecorder {
 public:
  enum class Stage { Bodies, BodiesAndPanel };
  static constexpr int kFramesPerSecond = 60;

  WindowRecorder() = default;
  ~WindowRecorder();  // a recording still running is finished (the file completed), unless stopped
  WindowRecorder(const WindowRecorder&) = delete;
  WindowRecorder& operator=(const WindowRecorder&) = delete;

  // Starts filming the window's back buffer (its size now; an odd width or height loses the right
  // column or the bottom row, since yuv420p halves both) into `path`. Throws std::runtime_error
  // when the file cannot be written or there is no encoder.
  void start(const std::string& path, glm::ivec2 framebufferSize, bool withPanel);
  // Completes the file; returns what became of it ("recording: wrote PATH (...)").
  // `beforePublishing` as for OutputFile::commit: what it throws abandons the movie.
  std::string stop(const std::function<void()>& beforePublishing = {});
  // The Record button and its key: start into a timestamped file, or stop. Returns what happened
  // (and prints it).
  std::string toggle(glm::ivec2 framebufferSize, bool withPanel);

  // Takes a picture of `target` if this is the stage it films and a new frame of the movie began,
  // or if it is the window's last frame (then in the next 60th of a second where this one has its
  // picture). A target of another size than at the start, or an encoder failure, ends the
  // recording (see takeMessage).
  void capture(Stage stage, const DrawTarget& target, bool lastFrame = false);

  bool recording() const { return recorder_ != nullptr; }
  double seconds() const;  // since the start; 0 when not recording
  const std::string& path() const { return path_; }
  // What the recorder said since last asked (a recording that ended by itself; printed already).
  std::optional<std::string> takeMessage();

 private:
  using Clock = std::chrono::steady_clock;
  void abandon(const std::string& why);
  void say(std::string message);

  std::unique_ptr<MovieRecorder> recorder_;
  std::string path_;
  glm::ivec2 size_{0, 0}, framebufferSize_{0, 0};
  Stage stage_ = Stage::Bodies;
  Clock::time_point began_;
  std::int64_t firstFrameIndex_ = 0, lastFrameIndex_ = -1;
  std::optional<std::string> message_;
};

}  // namespace nbody
