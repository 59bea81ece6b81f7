#include "serve/frame_encoder.h"

#include <array>
#include <bit>
#include <chrono>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <utility>

namespace nbody {
namespace {

constexpr std::uint64_t kPrime1 = 0x9E3779B185EBCA87, kPrime2 = 0xC2B2AE3D27D4EB4F;

// One round of XXH64: enough mixing that two different pictures share a hash with a chance of
// about 2^-64, at a few tenths of a millisecond for a 1280 x 800 picture.
std::uint64_t mixIn(std::uint64_t lane, std::uint64_t word) {
  return std::rotl(lane + word * kPrime2, 31) * kPrime1;
}

std::uint64_t wordAt(const std::uint8_t* bytes) {
  std::uint64_t word;
  std::memcpy(&word, bytes, sizeof word);
  return word;
}

// The picture's identity: its pixels and its size. Four independent lanes keep the multiplier
// busy.
std::uint64_t contentHashOf(std::span<const std::uint8_t> bytes, int width, int height) {
  std::array<std::uint64_t, 4> lanes{kPrime1, kPrime2, ~kPrime1, ~kPrime2};
  std::size_t at = 0;
  for (; at + 32 <= bytes.size(); at += 32)
    for (std::size_t lane = 0; lane < lanes.size(); ++lane)
      lanes[lane] = mixIn(lanes[lane], wordAt(&bytes[at + 8 * lane]));
  std::uint64_t hash = (std::uint64_t(std::uint32_t(width)) << 32) | std::uint32_t(height);
  for (const std::uint64_t lane : lanes) hash = mixIn(hash, lane);
  for (; at < bytes.size(); ++at) hash = mixIn(hash, bytes[at]);
  hash ^= hash >> 33;
  hash *= kPrime2;
  hash ^= hash >> 29;
  hash *= kPrime1;
  return hash ^ (hash >> 32);
}

void checkQuality(int quality, const char* which) {
  if (quality < 1 || quality > 100)
    throw std::invalid_argument(std::string("the ") + which + " JPEG quality is 1 to 100, not " +
                                std::to_string(quality));
}

}  // namespace

FrameEncoder::FrameEncoder(ViewerBoard& board, Clock serverSeconds, PublishedCallback published,
                           FrameEncoderSettings settings)
    : board_(board),
      serverSeconds_(std::move(serverSeconds)),
      published_(std::move(published)),
      settings_(settings) {
  checkQuality(settings.interactiveQuality, "interactive");
  checkQuality(settings.stillQuality, "still");
  if (!serverSeconds_) throw std::invalid_argument("a frame encoder needs a clock");
  // The board refuses a sequence that is not above its latest: continue after it.
  if (const auto latest = board_.latest()) nextSequence_ = latest->sequence + 1;
  thread_ = std::thread([this] { run(); });
}

FrameEncoder::~FrameEncoder() { stop(); }

bool FrameEncoder::offer(const RgbaPictureView& picture, bool interactive) {
  checkRgbaPicture(picture);
  if (picture.width > kMostJpegSide || picture.height > kMostJpegSide)
    throw std::invalid_argument("a JPEG picture is at most " + std::to_string(kMostJpegSide) +
                                " pixels a side");
  // The copy, outside the mutex, reuses the capacity of a buffer that went round before.
  const std::size_t capacityBefore = filling_.bottomUpRgba.capacity();
  filling_.bottomUpRgba.assign(picture.bottomUpRgba.begin(), picture.bottomUpRgba.end());
  pictureBufferBytes_ += filling_.bottomUpRgba.capacity() - capacityBefore;
  filling_.width = picture.width;
  filling_.height = picture.height;
  filling_.interactive = interactive;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return false;
    if (hasWaiting_) ++picturesReplaced_;
    std::swap(filling_, waiting_);
    hasWaiting_ = true;
    ++picturesHanded_;
  }
  pictureWaiting_.notify_one();
  return true;
}

void FrameEncoder::stop() {
  std::lock_guard stopLock(stopMutex_);
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    hasWaiting_ = false;  // dropped: no one will see it
  }
  pictureWaiting_.notify_all();
  if (thread_.joinable()) thread_.join();
}

FrameEncoderCounters FrameEncoder::counters() const {
  FrameEncoderCounters counters;
  counters.picturesHanded = picturesHanded_;
  counters.picturesReplaced = picturesReplaced_;
  counters.picturesUnchanged = picturesUnchanged_;
  counters.framesEncoded = framesEncoded_;
  counters.framesPublished = framesPublished_;
  counters.encodingsFailed = encodingsFailed_;
  if (counters.framesEncoded > 0)
    counters.meanEncodeMilliseconds =
        double(encodeNanoseconds_) / 1e6 / double(counters.framesEncoded);
  counters.pictureBufferBytes = pictureBufferBytes_;
  std::lock_guard lock(errorMutex_);
  counters.lastError = lastError_;
  return counters;
}

void FrameEncoder::run() {
  while (takeWaitingPicture()) {
    // A failure costs this picture only: the thread goes on with the next one.
    try {
      handle(encoding_);
    } catch (const std::exception& error) {
      ++encodingsFailed_;
      std::lock_guard lock(errorMutex_);
      lastError_ = error.what();
    }
  }
}

bool FrameEncoder::takeWaitingPicture() {
  std::unique_lock lock(mutex_);
  pictureWaiting_.wait(lock, [this] { return stopping_ || hasWaiting_; });
  if (stopping_) return false;
  // The picture encoded before goes back to the mailbox, for the render thread to fill again.
  std::swap(waiting_, encoding_);
  hasWaiting_ = false;
  return true;
}

void FrameEncoder::handle(const Picture& picture) {
  const std::uint64_t contentHash =
      contentHashOf(picture.bottomUpRgba, picture.width, picture.height);
  const bool unchanged = lastSent_ && lastSent_->contentHash == contentHash;
  if (!unchanged) return encodeAndPublish(picture, contentHash, /*still=*/false);
  if (picture.interactive || lastSent_->frame->still) {
    ++picturesUnchanged_;
    return;
  }
  // The view has settled: its still frame, once.
  if (lastSent_->quality == settings_.stillQuality) return publishStillFromLastBytes();
  encodeAndPublish(picture, contentHash, /*still=*/true);
}

void FrameEncoder::encodeAndPublish(const Picture& picture, std::uint64_t contentHash, bool still) {
  const int quality = picture.interactive ? settings_.interactiveQuality : settings_.stillQuality;
  const auto start = std::chrono::steady_clock::now();
  auto frame = std::make_shared<EncodedFrame>();
  frame->jpeg =
      compressor_.compress({picture.bottomUpRgba, picture.width, picture.height}, quality);
  encodeNanoseconds_ += std::uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count());
  ++framesEncoded_;
  frame->width = std::uint16_t(picture.width);  // offer() kept them within kMostJpegSide
  frame->height = std::uint16_t(picture.height);
  frame->still = still;
  publish(std::move(frame), contentHash, quality);
}

void FrameEncoder::publishStillFromLastBytes() {
  auto frame = std::make_shared<EncodedFrame>(*lastSent_->frame);
  frame->still = true;
  publish(std::move(frame), lastSent_->contentHash, lastSent_->quality);
}

void FrameEncoder::publish(std::shared_ptr<EncodedFrame> frame, std::uint64_t contentHash,
                           int quality) {
  frame->sequence = nextSequence_++;
  frame->serverTime = serverSeconds_();
  std::shared_ptr<const EncodedFrame> shared = std::move(frame);
  lastSent_ = LastSent{.contentHash = contentHash, .quality = quality, .frame = shared};
  board_.publish(std::move(shared));
  if (published_) published_();
  ++framesPublished_;  // after the callback: a frame counted has been announced
}

}  // namespace nbody
