#include "gl/timer_ring.h"

namespace nbody::gl {

TimerRing::TimerRing(int size) {
  if (!gpuTimers()) return;  // nothing is timed: begin() finds no free query
  for (int i = 0; i < size; ++i) slots_.push_back({TimeElapsedQuery::create(), 1.0, false});
}

bool TimerRing::begin(double weight) {
  if (slots_.empty() || slots_[next_].pending || active_ >= 0) return false;
  Slot& slot = slots_[next_];
  glBeginQuery(kTimeElapsed, slot.query.id());
  slot.weight = weight;
  active_ = next_;
  next_ = (next_ + 1) % int(slots_.size());
  return true;
}

void TimerRing::end() {
  if (active_ < 0) return;
  glEndQuery(kTimeElapsed);
  slots_[active_].pending = true;
  active_ = -1;
}

std::optional<double> TimerRing::takeFinished() {
  if (slots_.empty() || !slots_[oldest_].pending) return std::nullopt;
  Slot& slot = slots_[oldest_];
  if (!queryResultAvailable(slot.query.id())) return std::nullopt;
  const std::uint64_t nanoseconds = queryResult(slot.query.id());
  slot.pending = false;
  oldest_ = (oldest_ + 1) % int(slots_.size());
  return double(nanoseconds) * 1e-9 / slot.weight;
}

void TimerRing::discardPending() {
  end();
  for (Slot& slot : slots_) slot.pending = false;
  oldest_ = next_;
}

}  // namespace nbody::gl
