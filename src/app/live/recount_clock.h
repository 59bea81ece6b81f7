#pragma once
// When a figure the window counts from a state read back whole (the histogram, the tree's cells) is
// due again: at once when what it counts changed, else once a second while the run moves on, so
// that millions of bodies cost one readback a second, not one a frame.

namespace nbody {

class RecountClock {
 public:
  bool due(long long step, double seconds, bool choiceChanged) const {
    return choiceChanged || step_ < 0 || (step != step_ && seconds - seconds_ >= kEverySeconds);
  }
  void counted(long long step, double seconds) { step_ = step, seconds_ = seconds; }
  void forget() { step_ = -1; }

 private:
  static constexpr double kEverySeconds = 1.0;
  long long step_ = -1;  // of the state counted; -1: none yet
  double seconds_ = 0.0;
};

}  // namespace nbody
