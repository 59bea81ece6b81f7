#include "gl/storage_words.h"

#include <stdexcept>

namespace nbody::gl {

#if defined(GL_VERSION_4_3)

void StorageWords::fill(std::size_t words, GLuint value) {
  if (words > capacity_) {
    buffer_ = Buffer::create();
    glNamedBufferStorage(buffer_.id(), GLsizeiptr(words * sizeof(GLuint)), nullptr,
                         GL_DYNAMIC_STORAGE_BIT);
    capacity_ = words;
  }
  glClearNamedBufferSubData(buffer_.id(), GL_R32UI, 0, GLsizeiptr(words * sizeof(GLuint)),
                            GL_RED_INTEGER, GL_UNSIGNED_INT, &value);
}

void StorageWords::bindAt(GLuint binding) const {
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, buffer_.id());
}

std::vector<GLuint> StorageWords::read(std::size_t words) const {
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  std::vector<GLuint> read(words);
  glGetNamedBufferSubData(buffer_.id(), 0, GLsizeiptr(words * sizeof(GLuint)), read.data());
  return read;
}

#else

namespace {
[[noreturn]] void noShaderStorage() {
  throw std::logic_error("shader storage at the GL 4.1 / ES 3.0 subset");
}
}  // namespace

void StorageWords::fill(std::size_t, GLuint) { noShaderStorage(); }
void StorageWords::bindAt(GLuint) const { noShaderStorage(); }
std::vector<GLuint> StorageWords::read(std::size_t) const { noShaderStorage(); }

#endif

}  // namespace nbody::gl
