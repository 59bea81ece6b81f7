#pragma once
// A buffer reallocated only to grow, and the id of one of at least `bytes` (its contents then
// undefined; GL_DYNAMIC_STORAGE_BIT, so glNamedBufferSubData may fill it). GL 4.5 (the tree's and
// a decomposed run's); at the GL 4.1 / ES 3.0 subset nothing calls it.

#include <cstddef>

#include "gl/objects.h"

namespace nbody::gl {

struct GrowingBuffer {
  Buffer buffer;
  std::size_t bytes = 0;
};
GLuint ensureBuffer(GrowingBuffer& buffer, std::size_t bytes);

}  // namespace nbody::gl
