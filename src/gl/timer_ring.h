#pragma once
// GPU time of repeated work (a frame's steps, a frame's drawing) through a small ring of
// GL_TIME_ELAPSED queries: a result is read only once the GPU says it is available, so timing never
// waits on the work in flight.

#include <optional>
#include <vector>

#include "gl/objects.h"

namespace nbody::gl {

class TimerRing {
 public:
  explicit TimerRing(int size = 4);  // needs a current OpenGL context

  // Brackets the GL commands to time. Without a free query (all still in flight) the work goes
  // untimed: begin() returns false and end() does nothing.
  bool begin(double weight = 1.0);
  void end();
  // The oldest finished measurement, in seconds, divided by its weight (e.g. seconds per step);
  // nothing while none has finished.
  std::optional<double> takeFinished();
  // Forgets the measurements in flight (what they timed no longer runs).
  void discardPending();

 private:
  struct Slot {
    TimeElapsedQuery query;
    double weight = 1.0;
    bool pending = false;
  };
  std::vector<Slot> slots_;
  int next_ = 0;     // the slot begin() uses
  int oldest_ = 0;   // the oldest pending slot
  int active_ = -1;  // the slot between begin() and end()
};

}  // namespace nbody::gl
