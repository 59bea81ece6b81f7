#pragma once
// The input of `nbody serve`'s controlling viewer, handed from the network thread to the
// simulation thread. The network thread pushes each message it accepted; the simulation thread
// takes all of them once per frame. The one mutex is held for a push or a swap only, never during
// I/O, so the simulation thread never waits on the network.
//
// The queue is bounded: beyond its capacity the oldest message is dropped (and counted), since the
// newest input is what the user does now, and a key's release comes after its press. It fills only
// when the simulation thread stops taking input for seconds (1024 messages at 200 a second).

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "serve/input_message.h"
#include "serve/viewers.h"

namespace nbody {

inline constexpr std::size_t kInputQueueCapacity = 1024;

// One message and the viewer that sent it.
struct ViewerInput {
  ViewerId viewer = 0;
  InputMessage message;
};

// Every member may be called from any thread.
class InputQueue {
 public:
  // Throws std::invalid_argument unless capacity >= 1.
  explicit InputQueue(std::size_t capacity = kInputQueueCapacity);

  void push(ViewerInput input);
  // Every message pushed since the last call, oldest first; never waits on anything but the swap.
  std::vector<ViewerInput> drainAll();
  // Whether a message is waiting, after waiting up to `timeout` for one. For a consumer with
  // nothing else to do (a test, a paused loop); the simulation thread calls drainAll only.
  bool waitForInput(std::chrono::milliseconds timeout);
  // How many messages were dropped because the queue was full, since it was made.
  std::uint64_t dropped() const;

 private:
  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable pushed_;
  std::deque<ViewerInput> messages_;
  std::uint64_t dropped_ = 0;
};

}  // namespace nbody
