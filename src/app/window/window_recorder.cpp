#include "app/window/window_recorder.h"

#include "app/run/stop_signals.h"
#include "app/window/window_capture.h"
#include "io/output_file.h"
#include "util/printable_text.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include <glad/gl.h>

namespace nbody {
namespace {

// The read framebuffer and read buffer, put back after taking the window's picture.
class ReadBindingGuard {
 public:
  ReadBindingGuard() {
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &framebuffer_);
    glGetIntegerv(GL_READ_BUFFER, &buffer_);
  }
  ~ReadBindingGuard() {
    glBindFramebuffer(GL_READ_FRAMEBUFFER, GLuint(framebuffer_));
    glReadBuffer(GLenum(buffer_));
  }
  ReadBindingGuard(const ReadBindingGuard&) = delete;
  ReadBindingGuard& operator=(const ReadBindingGuard&) = delete;

 private:
  GLint framebuffer_ = 0, buffer_ = GL_BACK;
};

// What a finished movie holds: its pictures, how long it plays (from its first picture's 60th of a
// second to its last's, on the window's clock) and how long the filming took.
std::string describe(std::int64_t frames, double plays, double filmed) {
  char text[128];
  std::snprintf(text, sizeof text, "%lld frames, %.2f s long, filmed over %.1f s",
                (long long)frames, plays, filmed);
  return text;
}

}  // namespace

WindowRecorder::~WindowRecorder() {
  if (!recording() || stopRequested()) return;  // a stop abandons the movie
  try {
    std::fprintf(stderr, "run: %s\n", withoutControlCharacters(stop()).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "run: recording failed: %s\n", withoutControlCharacters(e.what()).c_str());
  }
}

void WindowRecorder::start(const std::string& path, glm::ivec2 framebufferSize, bool withPanel) {
  VideoSettings video;
  video.width = framebufferSize.x & ~1;
  video.height = framebufferSize.y & ~1;
  video.framesPerSecond = kFramesPerSecond;
  recorder_ = std::make_unique<MovieRecorder>(std::make_unique<VideoWriter>(path, video));
  path_ = std::filesystem::absolute(path).string();
  size_ = {video.width, video.height};
  framebufferSize_ = framebufferSize;
  stage_ = withPanel ? Stage::BodiesAndPanel : Stage::Bodies;
  began_ = Clock::now();
  lastFrameIndex_ = -1;
}

std::string WindowRecorder::stop(const std::function<void()>& beforePublishing) {
  if (!recording()) return "not recording";
  std::unique_ptr<MovieRecorder> recorder = std::move(recorder_);  // not recording, come what may
  const double filmed = std::chrono::duration<double>(Clock::now() - began_).count();
  recorder->finish(beforePublishing);
  path_ = newNameTaken(path_).string();
  const double plays =
      lastFrameIndex_ < 0 ? 0.0 : double(lastFrameIndex_ - firstFrameIndex_ + 1) / kFramesPerSecond;
  return "recording: wrote " + path_ + " (" + describe(recorder->framesCaptured(), plays, filmed) +
         ")";
}

std::string WindowRecorder::toggle(glm::ivec2 framebufferSize, bool withPanel) {
  std::string said;
  try {
    if (recording()) {
      said = stop();
    } else {
      const std::string name = timestampedName(".mp4");
      try {
        start(name, framebufferSize, withPanel);
      } catch (const std::exception&) {
        newNameTaken(name);  // forgets the name it expected
        throw;
      }
      said = "recording into " + path_ + (withPanel ? " (with the panel)" : " (without the panel)");
    }
  } catch (const std::exception& e) {
    said = std::string("recording failed: ") + e.what();
  }
  std::fprintf(stderr, "run: %s\n", withoutControlCharacters(said).c_str());
  return said;
}

void WindowRecorder::say(std::string message) {
  std::fprintf(stderr, "run: %s\n", withoutControlCharacters(message).c_str());
  message_ = std::move(message);
}

void WindowRecorder::abandon(const std::string& why) {
  recorder_.reset();  // nothing appears under the movie's name
  say("recording stopped: " + why + "; nothing written");
}

void WindowRecorder::capture(Stage stage, const DrawTarget& target, bool lastFrame) {
  const glm::ivec2 framebufferSize = target.size;
  if (!recording() || stage != stage_) return;
  if (framebufferSize != framebufferSize_) {
    const std::string why = "the window changed size";
    try {
      say(stop() + " (" + why + ")");
    } catch (const std::exception& e) {
      abandon(why + ", then " + e.what());
    }
    return;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - began_).count();
  auto frameIndex = std::int64_t(std::floor(seconds * kFramesPerSecond));
  if (frameIndex <= lastFrameIndex_) {
    if (!lastFrame) return;            // this 60th of a second has its picture
    frameIndex = lastFrameIndex_ + 1;  // the movie ends with the window's last picture
  }
  try {
    const ReadBindingGuard guard;
    glBindFramebuffer(GL_READ_FRAMEBUFFER, target.framebuffer);
    glReadBuffer(target.readBuffer);  // what the next swap shows
    recorder_->capture(frameIndex,
                       {0, framebufferSize.y - size_.y});  // an odd height loses the bottom row
    if (lastFrameIndex_ < 0) firstFrameIndex_ = frameIndex;
    lastFrameIndex_ = frameIndex;
  } catch (const std::exception& e) {
    abandon(e.what());
  }
}

double WindowRecorder::seconds() const {
  return recording() ? std::chrono::duration<double>(Clock::now() - began_).count() : 0.0;
}

std::optional<std::string> WindowRecorder::takeMessage() {
  return std::exchange(message_, std::nullopt);
}

}  // namespace nbody
