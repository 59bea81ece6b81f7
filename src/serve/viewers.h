#pragma once
// The fan-out of encoded frames to the viewers of `nbody serve` (docs/serve.md, "Frames and
// viewers"), as pure logic: no I/O, one mutex held only for a few comparisons and a pointer
// swap, so that the thread that publishes frames never waits on the network.
//
// Each frame is encoded once and shared by every viewer. The board keeps only the latest one
// ("latest wins"); a frame a viewer was sent lives as long as whoever writes it holds it. Each
// viewer has a credit of frames it may have unacknowledged (2 by default): a frame is taken for
// it only while it has credit and has not yet been sent that frame or a later one, and its
// acknowledgement returns the credit. A slow viewer therefore skips frames and lowers only its
// own frame rate; one that never acknowledges gets `credit` frames and then none.
//
// One viewer at a time has control (its input steers the session): the first to join, or the
// first to join while no one has it; one that asks (takeControl); and when the controller leaves,
// the one that has been connected longest.
//
// The binary message of a frame, every number little-endian:
//
//   offset  size  field
//   0       4     magic "NBF1" (the version is in the magic)
//   4       8     u64 sequence number (increasing)
//   12      2     u16 width in pixels
//   14      2     u16 height in pixels
//   16      1     u8 codec (0: JPEG)
//   17      1     u8 flags (bit 0: a still frame, sent once the view has settled)
//   18      2     u16 reserved (0)
//   20      8     f64 server time in seconds
//   28      n     the encoded picture (a whole JPEG file for codec 0)

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace nbody {

inline constexpr std::string_view kFrameMagic{"NBF1"};
inline constexpr std::size_t kFrameHeaderBytes = 28;
inline constexpr std::uint8_t kJpegCodec = 0;
inline constexpr std::uint8_t kStillFrameFlag = 1;

struct EncodedFrame {
  std::uint64_t sequence = 0;
  std::uint16_t width = 0, height = 0;
  bool still = false;
  double serverTime = 0;
  std::vector<std::uint8_t> jpeg;
};

// The binary WebSocket message of a frame as a viewer's write sends it: the header above, then the
// frame's own JPEG bytes. Every viewer's write points at the same picture, so a frame's picture is
// never copied however many viewers there are; `picture` is valid as long as the frame is.
struct FrameMessageParts {
  std::array<std::uint8_t, kFrameHeaderBytes> header{};
  std::span<const std::uint8_t> picture;
};
FrameMessageParts frameMessageParts(const EncodedFrame& frame);

// The same message in one buffer (a copy: for tests and tools, not for the server).
std::vector<std::uint8_t> frameMessage(const EncodedFrame& frame);

using ViewerId = std::uint64_t;

// What the status reports of a viewer.
struct ViewerCounters {
  std::uint64_t framesSent = 0;
  std::uint64_t framesAcknowledged = 0;
};

// Every member may be called from any thread.
class ViewerBoard {
 public:
  // Throws std::invalid_argument unless mostViewers >= 1 and credit >= 1.
  explicit ViewerBoard(std::size_t mostViewers = 4, int credit = 2);

  // Makes `frame` the latest, unless it is null or its sequence is not above the latest's.
  void publish(std::shared_ptr<const EncodedFrame> frame);
  std::shared_ptr<const EncodedFrame> latest() const;

  // A new viewer, or nothing when mostViewers are connected already.
  std::optional<ViewerId> join();
  void leave(ViewerId viewer);

  // Returns the credit of a frame sent to `viewer` and not yet acknowledged, and of every frame
  // sent to it before that one (frames arrive in order); an acknowledgement of any other sequence
  // (never sent, already acknowledged) changes nothing. Whether it returned any credit.
  bool acknowledge(ViewerId viewer, std::uint64_t sequence);
  // Whether `viewer` has frames sent and not yet acknowledged. The board is the one record of
  // them: the server's ack timeout asks here.
  bool awaitsAcknowledgement(ViewerId viewer) const;

  // The latest frame when `viewer` has credit and has not been sent it or a later one (spending a
  // credit), otherwise null. The caller writes it and drops it.
  std::shared_ptr<const EncodedFrame> takeFrameFor(ViewerId viewer);

  // Gives `viewer` control; false when it is not connected.
  bool takeControl(ViewerId viewer);
  bool mayControl(ViewerId viewer) const;
  std::optional<ViewerId> controller() const;

  std::size_t viewerCount() const;
  // Nothing when `viewer` is not connected.
  std::optional<ViewerCounters> countersOf(ViewerId viewer) const;

 private:
  struct Viewer {
    ViewerId id = 0;
    int credit = 0;
    std::optional<std::uint64_t> lastSent;
    std::vector<std::uint64_t> unacknowledged;  // at most the credit's worth
    ViewerCounters counters;
  };

  Viewer* find(ViewerId viewer);
  const Viewer* find(ViewerId viewer) const;

  const std::size_t mostViewers_;
  const int credit_;
  mutable std::mutex mutex_;
  std::shared_ptr<const EncodedFrame> latest_;
  std::vector<Viewer> viewers_;  // in the order they joined
  std::optional<ViewerId> controller_;
  ViewerId nextId_ = 1;
};

// How many messages a viewer may send: a token bucket of `burst` messages refilled at `perSecond`,
// on a clock the caller gives (seconds, from any origin; a clock that goes back refills nothing).
// One per viewer, used by one thread at a time.
class MessageRate {
 public:
  // Throws std::invalid_argument unless perSecond > 0 and burst >= 1, both finite.
  MessageRate(double perSecond, double burst);
  // Whether a message at `nowSeconds` is within the rate (and counts it when it is); never at a
  // time that is not finite.
  bool allow(double nowSeconds);

 private:
  double perSecond_, burst_;
  double tokens_;
  std::optional<double> lastSeconds_;
};

}  // namespace nbody
