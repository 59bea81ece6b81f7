#pragma once
// The encoder thread of `nbody serve` (docs/serve.md, "The encoder"): it turns the pictures the
// render thread draws into JPEG frames on the viewer board, so that the render thread never waits
// on encoding.
//
// The render thread hands each picture to a one-slot mailbox, "latest wins": a picture handed
// while the one before still waits replaces it (counted as replaced). Handing one copies its
// pixels into a buffer the encoder keeps, then takes a mutex only for a swap of buffers, which the
// encoder thread also holds only for a swap; three buffers go round (the one being filled, the
// one waiting, the one being encoded), so in steady state nothing is allocated but each JPEG.
//
// The encoder thread takes the waiting picture and decides what to send from its content (a
// 64-bit hash of its pixels and size, computed on this thread), so the caller need not know
// whether the picture changed:
//   - a picture that differs from the last frame sent is encoded at the interactive quality when
//     it was handed as interactive (the user steered in the last moments: the caller decides),
//     otherwise at the still quality;
//   - a picture equal to the last frame sent, handed as not interactive, means the view has
//     settled: it is sent once more as a still frame (EncodedFrame::still) at the still quality,
//     reusing the bytes of the last frame when those were at the still quality already;
//   - anything else (the same picture again after its still frame, or while the user steers) is
//     sent nothing: nothing is re-sent while the picture is still.
// Each frame sent gets the next sequence number and the server time at which it is published,
// goes to ViewerBoard::publish, and then the `published` callback runs (on the encoder thread; the
// network server wakes its writers there).

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "serve/jpeg_compressor.h"
#include "serve/viewers.h"

namespace nbody {

struct FrameEncoderSettings {
  // While the user steers: a window frame is about half the bytes it has at 90.
  int interactiveQuality = 60;
  int stillQuality = 90;
};

// What the status reports of the encoder. Every picture handed is eventually replaced, unchanged,
// published or failed, or dropped when the encoder stops.
struct FrameEncoderCounters {
  std::uint64_t picturesHanded = 0;
  std::uint64_t picturesReplaced = 0;   // by a later one before the encoder took them
  std::uint64_t picturesUnchanged = 0;  // the same as the frame already sent: nothing sent
  std::uint64_t framesEncoded = 0;      // JPEG encodings
  std::uint64_t framesPublished = 0;    // frames sent, still frames that reused bytes included
  std::uint64_t encodingsFailed = 0;
  double meanEncodeMilliseconds = 0;     // over the frames encoded
  std::uint64_t pictureBufferBytes = 0;  // held by the mailbox's three buffers
  std::string lastError;                 // of the latest failure, one line
};

class FrameEncoder {
 public:
  // Server time in seconds; called on the encoder thread only.
  using Clock = std::function<double()>;
  // Runs on the encoder thread after each frame is published; it must be quick and not throw.
  using PublishedCallback = std::function<void()>;

  // Starts the encoder thread. Sequence numbers continue after the board's latest frame. Throws
  // std::invalid_argument for a quality outside 1..100 or an empty clock, std::runtime_error when
  // no JPEG compressor can be made. The board must outlive the encoder.
  FrameEncoder(ViewerBoard& board, Clock serverSeconds, PublishedCallback published = {},
               FrameEncoderSettings settings = {});
  // stop().
  ~FrameEncoder();
  FrameEncoder(const FrameEncoder&) = delete;
  FrameEncoder& operator=(const FrameEncoder&) = delete;

  // Hands the latest picture over (from one thread at a time: the render thread), copying it;
  // never waits on encoding. `interactive`: the user steered in the last moments (300 ms in
  // `nbody serve`). Throws std::invalid_argument for a side outside 1..kMostJpegSide or
  // a byte count other than width * height * 4. False, taking nothing, once the encoder stops.
  bool offer(const RgbaPictureView& picture, bool interactive);

  // Stops the thread: the picture waiting, if any, is dropped; an encoding under way finishes and
  // is published. Idempotent; returns once the thread has ended. Not from the published callback:
  // the thread cannot wait for itself.
  void stop();

  FrameEncoderCounters counters() const;

 private:
  struct Picture {
    std::vector<std::uint8_t> bottomUpRgba;
    int width = 0, height = 0;
    bool interactive = false;
  };
  // What the encoder sent last, to tell a changed picture from an unchanged one.
  struct LastSent {
    std::uint64_t contentHash = 0;
    int quality = 0;
    std::shared_ptr<const EncodedFrame> frame;
  };

  void run();
  bool takeWaitingPicture();
  void handle(const Picture& picture);
  void encodeAndPublish(const Picture& picture, std::uint64_t contentHash, bool still);
  void publishStillFromLastBytes();
  void publish(std::shared_ptr<EncodedFrame> frame, std::uint64_t contentHash, int quality);

  ViewerBoard& board_;
  const Clock serverSeconds_;
  const PublishedCallback published_;
  const FrameEncoderSettings settings_;

  Picture filling_;  // the render thread's, outside the mutex

  std::mutex mutex_;  // held only for a swap of pictures and the flags below
  std::condition_variable pictureWaiting_;
  Picture waiting_;
  bool hasWaiting_ = false;
  bool stopping_ = false;

  // The encoder thread's, outside the mutex.
  Picture encoding_;
  JpegCompressor compressor_;
  std::optional<LastSent> lastSent_;
  std::uint64_t nextSequence_ = 1;

  std::atomic<std::uint64_t> picturesHanded_{0}, picturesReplaced_{0}, picturesUnchanged_{0};
  std::atomic<std::uint64_t> framesEncoded_{0}, framesPublished_{0}, encodingsFailed_{0};
  std::atomic<std::uint64_t> encodeNanoseconds_{0}, pictureBufferBytes_{0};
  mutable std::mutex errorMutex_;
  std::string lastError_;

  std::mutex stopMutex_;  // one stop() joins, others wait for it
  std::thread thread_;    // last: started once everything above is made
};

}  // namespace nbody
