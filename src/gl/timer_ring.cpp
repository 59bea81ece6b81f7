#include "gl/timer_ring.h"

namespace nbody::gl {

TimerRing::TimerRing(int size) {
  for (int i = 0; i < size; ++i) slots_.push_back({TimeElapsedQuery::create(), 1.0, false});
}

bool TimerRing::begin(double weight) {
  Slot& slot = slots_[next_];
  if (slot.pending || active_ >= 0) return false;
  glBeginQuery(GL_TIME_ELAPSED, slot.query.id());
  slot.weight = weight;
  active_ = next_;
  next_ = (next_ + 1) % int(slots_.size());
  return true;
}

void TimerRing::end() {
  if (active_ < 0) return;
  glEndQuery(GL_TIME_ELAPSED);
  slots_[active_].pending = true;
  active_ = -1;
}

std::optional<double> TimerRing::takeFinished() {
  Slot& slot = slots_[oldest_];
  if (!slot.pending) return std::nullopt;
  GLint available = 0;
  glGetQueryObjectiv(slot.query.id(), GL_QUERY_RESULT_AVAILABLE, &available);
  if (!available) return std::nullopt;
  GLuint64 nanoseconds = 0;
  glGetQueryObjectui64v(slot.query.id(), GL_QUERY_RESULT, &nanoseconds);
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
