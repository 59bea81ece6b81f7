#pragma once
// GPU time between the marks of repeated work (a tree evaluation's stages) through a small ring of
// slots, each `marks` GL_TIMESTAMP queries: unlike GL_TIME_ELAPSED queries, timestamps may fall
// inside a caller's own GL_TIME_ELAPSED query (bench times whole steps with one). A result is read
// only once the GPU says it is available, so timing never waits on the work in flight.

#include <optional>
#include <vector>

#include "gl/objects.h"

namespace nbody::gl {

class TimestampRing {
 public:
  TimestampRing(int slots, int marks);  // needs a current OpenGL context

  // Takes the next slot for the work about to be sent. While that slot holds an unread
  // measurement that has not finished, the work goes untimed: returns false, and mark() does
  // nothing until the next begin(). An unread finished one is dropped (nobody asked for it).
  bool begin();
  // Records mark k (0 .. marks - 1) of the slot begin() took; the last one makes its measurement
  // one to read (work that ends before it, e.g. by an exception, is never given).
  void mark(int k);
  // The seconds between consecutive marks of the newest finished measurement (marks - 1 values);
  // every finished one is given once, the older ones dropped. Nothing while none has finished.
  std::optional<std::vector<double>> takeNewest();

 private:
  struct Slot {
    std::vector<TimestampQuery> marks;
    bool pending = false;  // marked, not yet read
  };
  bool finished(const Slot& slot) const;

  std::vector<Slot> slots_;
  int next_ = 0;     // the slot begin() takes
  int active_ = -1;  // the slot mark() records into
};

}  // namespace nbody::gl
