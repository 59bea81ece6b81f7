#include "app/run/movie_recorder.h"

namespace nbody {

MovieRecorder::MovieRecorder(std::unique_ptr<VideoWriter> writer)
    : ring_({writer->settings().width, writer->settings().height}, kRingDepth),
      encoder_(std::move(writer), kRingDepth) {}

MovieRecorder::~MovieRecorder() = default;

void MovieRecorder::capture(std::int64_t frameIndex, glm::ivec2 corner) {
  if (ring_.full()) handOldestToEncoder();
  // The slot request() fills is the one after the pending ones: remember what it shows.
  pendingFrameIndices_[framesCaptured_ % kRingDepth] = frameIndex;
  ring_.request(corner);
  ++framesCaptured_;
  if (ring_.pending() > kCopiesInFlight) handOldestToEncoder();
}

void MovieRecorder::handOldestToEncoder() {
  const std::int64_t taken = framesCaptured_ - ring_.pending();  // the capture number of the oldest
  const std::int64_t frameIndex = pendingFrameIndices_[taken % kRingDepth];
  const gl::PixelReadbackRing::Pixels pixels = ring_.takeOldest();
  const std::ptrdiff_t rowBytes = std::ptrdiff_t(ring_.size().x) * 4;
  // OpenGL's rows start at the bottom: the encoder reads from the top row down, backwards.
  const std::uint8_t* topRow = pixels.bottomRow + rowBytes * (ring_.size().y - 1);
  encoder_.submit(
      {topRow, -rowBytes, frameIndex, [this, slot = pixels.slot] { ring_.release(slot); }});
}

void MovieRecorder::finish(const std::function<void()>& beforePublishing) {
  while (ring_.pending() > 0) handOldestToEncoder();
  encoder_.finish(beforePublishing);
}

MovieRecorder::Waits MovieRecorder::waits() const {
  return {ring_.copyWaitSeconds(), ring_.heldWaitSeconds() + encoder_.waitedSeconds(),
          encoder_.busySeconds()};
}

}  // namespace nbody
