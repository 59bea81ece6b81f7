#include "serve/input_queue.h"

#include <stdexcept>
#include <utility>

namespace nbody {

InputQueue::InputQueue(std::size_t capacity) : capacity_(capacity) {
  if (capacity < 1) throw std::invalid_argument("an input queue needs room for one message");
}

void InputQueue::push(ViewerInput input) {
  {
    std::lock_guard lock(mutex_);
    if (messages_.size() >= capacity_) {
      messages_.pop_front();
      ++dropped_;
    }
    messages_.push_back(std::move(input));
  }
  pushed_.notify_all();
}

std::vector<ViewerInput> InputQueue::drainAll() {
  std::deque<ViewerInput> taken;
  {
    std::lock_guard lock(mutex_);
    taken.swap(messages_);
  }
  // Moved out of the lock: the network thread may push again meanwhile.
  return {std::make_move_iterator(taken.begin()), std::make_move_iterator(taken.end())};
}

bool InputQueue::waitForInput(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return pushed_.wait_for(lock, timeout, [this] { return !messages_.empty(); });
}

std::uint64_t InputQueue::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

}  // namespace nbody
