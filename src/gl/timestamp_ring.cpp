#include "gl/timestamp_ring.h"

namespace nbody::gl {

TimestampRing::TimestampRing(int slots, int marks) {
  for (int s = 0; s < slots; ++s) {
    Slot slot;
    for (int m = 0; m < marks; ++m) slot.marks.push_back(TimestampQuery::create());
    slots_.push_back(std::move(slot));
  }
}

bool TimestampRing::finished(const Slot& slot) const {
  return queryResultAvailable(slot.marks.back().id());
}

bool TimestampRing::begin() {
  Slot& slot = slots_[std::size_t(next_)];
  if (slot.pending && !finished(slot)) {
    active_ = -1;
    return false;
  }
  active_ = next_;
  next_ = (next_ + 1) % int(slots_.size());
  slot.pending = false;  // until its last mark: work cut short (a throw) leaves nothing to read
  return true;
}

void TimestampRing::mark(int k) {
  if (active_ < 0) return;
  Slot& slot = slots_[std::size_t(active_)];
  stampTime(slot.marks[std::size_t(k)].id());
  if (std::size_t(k) + 1 == slot.marks.size()) slot.pending = true;
}

std::optional<std::vector<double>> TimestampRing::takeNewest() {
  std::optional<std::vector<double>> newest;
  for (std::size_t k = 1; k <= slots_.size(); ++k) {  // oldest first, so the newest wins
    Slot& slot = slots_[(std::size_t(next_) + k - 1) % slots_.size()];
    if (!slot.pending || !finished(slot)) continue;
    std::vector<std::uint64_t> at(slot.marks.size());
    for (std::size_t m = 0; m < at.size(); ++m) at[m] = queryResult(slot.marks[m].id());
    std::vector<double> seconds;
    for (std::size_t m = 0; m + 1 < at.size(); ++m)
      seconds.push_back(double(at[m + 1] - at[m]) * 1e-9);
    newest = std::move(seconds);
    slot.pending = false;
  }
  return newest;
}

}  // namespace nbody::gl
