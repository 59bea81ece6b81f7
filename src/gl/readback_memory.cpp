#include "gl/readback_memory.h"

#include <stdexcept>

#include "gl/level.h"
#include "util/system_limits.h"

namespace nbody::gl {
namespace {

#if defined(GL_VERSION_4_5)
// Client storage: the buffer lives in the CPU's cached memory.
const std::uint8_t* mapForGood(GLuint buffer, std::size_t bytes) {
  const GLbitfield flags = GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
  glNamedBufferStorage(buffer, GLsizeiptr(bytes), nullptr, flags | GL_CLIENT_STORAGE_BIT);
  return static_cast<const std::uint8_t*>(
      glMapNamedBufferRange(buffer, 0, GLsizeiptr(bytes), flags));
}
#endif

}  // namespace

ReadbackMemory::ReadbackMemory(std::size_t bytes) : bytes_(bytes) {
#if defined(GL_VERSION_4_5)
  if (directStateAccess()) {
    buffer_ = Buffer::create();
    mapped_ = mapForGood(buffer_.id(), bytes);
    if (!mapped_)
      throw std::runtime_error("could not map a pixel-buffer object for readback" +
                               limitsThatMayBeBehind());
    return;
  }
#endif
  host_.resize(bytes);
  mapped_ = host_.data();
}

void* ReadbackMemory::destination(std::size_t offset) const {
  if (buffer_) return reinterpret_cast<void*>(offset);
  return const_cast<std::uint8_t*>(mapped_) + offset;
}

}  // namespace nbody::gl
