#include "gl/growing_buffer.h"

#include <algorithm>

#include "gl/desktop_calls.h"

namespace nbody::gl {

GLuint ensureBuffer(GrowingBuffer& buffer, std::size_t bytes) {
  if (buffer.buffer.id() == 0 || buffer.bytes < bytes) {
    buffer.bytes = std::max<std::size_t>(bytes, 16);
    buffer.buffer = Buffer::create();
    glNamedBufferStorage(buffer.buffer.id(), GLsizeiptr(buffer.bytes), nullptr,
                         GL_DYNAMIC_STORAGE_BIT);
  }
  return buffer.buffer.id();
}

}  // namespace nbody::gl
