#pragma once
// A shader storage buffer of 32-bit words (OpenGL 4.3) that shaders count into and the host reads:
// grown as asked, set to one value, bound, read. The GL 4.1 / ES 3.0 subset (gl/level.h) has no
// shader storage; its context counts as 4.1, so nothing asks for one there, and a build whose
// loader stops at 4.1 compiles these as throwing std::logic_error.

#include <cstddef>
#include <vector>

#include "gl/objects.h"

namespace nbody::gl {

class StorageWords {
 public:
  // At least `words` words, each `value` (what was there before is not kept).
  void fill(std::size_t words, GLuint value);
  void bindAt(GLuint binding) const;
  // The first `words` words, after the writes of the shaders before (a barrier is made).
  std::vector<GLuint> read(std::size_t words) const;

 private:
  Buffer buffer_;
  [[maybe_unused]] std::size_t capacity_ = 0;  // unused at the subset, which has none
};

}  // namespace nbody::gl
