#pragma once
// Films what is drawn: each capture() copies the picture in the bound read framebuffer into a
// ring of pixel-buffer objects without waiting for the GPU, and hands the copy made a few captures
// earlier (finished by then) to an encoder on its own thread. `nbody record` and the window's
// Record button share it.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

#include "gl/pixel_readback.h"
#include "io/video_writer.h"

namespace nbody {

class MovieRecorder {
 public:
  // Needs a current OpenGL context; the writer says the movie's size and rate.
  explicit MovieRecorder(std::unique_ptr<VideoWriter> writer);
  // Without finish(): the movie is abandoned and nothing appears under its name.
  ~MovieRecorder();
  MovieRecorder(const MovieRecorder&) = delete;
  MovieRecorder& operator=(const MovieRecorder&) = delete;

  // The movie-sized rectangle at `corner` (lower left, OpenGL's pixels) of the bound read
  // framebuffer (its read buffer: the back buffer for a window) becomes the picture shown at
  // `frameIndex` (in frames of the movie's rate; increasing). Rethrows a failure of the encoder.
  void capture(std::int64_t frameIndex, glm::ivec2 corner = {0, 0});
  // Encodes what is still in flight and completes the file under its name; `beforePublishing` as
  // for OutputFile::commit (what it throws abandons the movie).
  void finish(const std::function<void()>& beforePublishing = {});

  const VideoWriter& writer() const { return encoder_.writer(); }
  std::int64_t framesCaptured() const { return framesCaptured_; }
  // Where the time went, in seconds over the whole movie.
  struct Waits {
    double forCopies = 0;   // the GPU's copies not yet finished when taken
    double forEncoder = 0;  // every buffer still held by the encoder (it is behind)
    double encoding = 0;    // the encoder's thread busy converting and encoding
  };
  Waits waits() const;

 private:
  void handOldestToEncoder();

  // Encoded pictures lag this many captures behind: their copies have finished by the time they
  // are taken. The ring holds them, plus the pictures the encoder is working on.
  static constexpr int kCopiesInFlight = 2, kRingDepth = 6;
  gl::PixelReadbackRing ring_;  // before encoder_: the encoder releases the ring's buffers
  VideoEncoderThread encoder_;
  std::int64_t pendingFrameIndices_[kRingDepth] = {};
  std::int64_t framesCaptured_ = 0;
};

}  // namespace nbody
