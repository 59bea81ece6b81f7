#pragma once
// When a figure the window counts from a state read back whole (the histogram, the tree's cells) is
// due again: at once when what it counts changed, else once a second while the run moves on, and
// no more often than keeps the counting under a tenth of the time (at millions of bodies a count
// costs a readback and a pass over every body).

#include <algorithm>

namespace nbody {

class RecountClock {
 public:
  bool due(long long step, double seconds, bool choiceChanged) const {
    return choiceChanged || step_ < 0 || (step != step_ && seconds >= nextSeconds_);
  }
  // Counted at `step` when the clock read `seconds`, which took `costSeconds`.
  void counted(long long step, double seconds, double costSeconds) {
    step_ = step;
    nextSeconds_ = seconds + std::max(kEverySeconds, costSeconds / kMostShare);
  }
  void forget() { step_ = -1; }

 private:
  static constexpr double kEverySeconds = 1.0, kMostShare = 0.1;
  long long step_ = -1;  // of the state counted; -1: none yet
  double nextSeconds_ = 0.0;
};

}  // namespace nbody
