#pragma once
// Move-only owners for OpenGL objects: every GL name the program creates is deleted by one of
// these.

#include <atomic>
#include <utility>

#include <glad/gl.h>

#include "gl/state_access.h"

namespace nbody::gl {

// GL objects alive through a Handle, all types together: the soak test checks it does not grow.
inline std::atomic<long> liveObjectCount{0};

template <typename Traits>
class Handle {
 public:
  Handle() = default;
  static Handle create() { return Handle(Traits::create()); }
  explicit Handle(GLuint id) : id_(id) {
    if (id_ != 0) ++liveObjectCount;
  }
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, 0u)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, 0u);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  GLuint id() const { return id_; }
  explicit operator bool() const { return id_ != 0; }
  // Gives up ownership: the caller deletes the object.
  GLuint release() {
    if (id_ != 0) --liveObjectCount;
    return std::exchange(id_, 0u);
  }
  void reset() {
    if (id_ != 0) {
      Traits::destroy(id_);
      --liveObjectCount;
    }
    id_ = 0;
  }

 private:
  GLuint id_ = 0;
};

struct Texture2DTraits {
  static GLuint create() { return newTexture(GL_TEXTURE_2D); }
  static void destroy(GLuint id) { glDeleteTextures(1, &id); }
};
struct RenderbufferTraits {
  static GLuint create() { return newRenderbuffer(); }
  static void destroy(GLuint id) { glDeleteRenderbuffers(1, &id); }
};
struct FramebufferTraits {
  static GLuint create() { return newFramebuffer(); }
  static void destroy(GLuint id) { glDeleteFramebuffers(1, &id); }
};
struct VertexArrayTraits {
  static GLuint create() { return newVertexArray(); }
  static void destroy(GLuint id) { glDeleteVertexArrays(1, &id); }
};
struct BufferTraits {
  static GLuint create() { return newBuffer(); }
  static void destroy(GLuint id) { glDeleteBuffers(1, &id); }
};
struct TimeElapsedQueryTraits {
  static GLuint create() { return newQuery(kTimeElapsed); }
  static void destroy(GLuint id) { glDeleteQueries(1, &id); }
};
// GL_TIMESTAMP queries (glQueryCounter) may be taken anywhere, also inside another component's
// GL_TIME_ELAPSED query, which a nested GL_TIME_ELAPSED query may not.
struct TimestampQueryTraits {
  static GLuint create() { return newQuery(kTimestamp); }
  static void destroy(GLuint id) { glDeleteQueries(1, &id); }
};
struct ProgramTraits {
  static GLuint create() { return glCreateProgram(); }
  static void destroy(GLuint id) { glDeleteProgram(id); }
};
struct ShaderTraits {
  static void destroy(GLuint id) { glDeleteShader(id); }
};

using Texture = Handle<Texture2DTraits>;
using Renderbuffer = Handle<RenderbufferTraits>;
using Framebuffer = Handle<FramebufferTraits>;
using VertexArray = Handle<VertexArrayTraits>;
using Buffer = Handle<BufferTraits>;
using TimeElapsedQuery = Handle<TimeElapsedQueryTraits>;
using TimestampQuery = Handle<TimestampQueryTraits>;
using Program = Handle<ProgramTraits>;
using Shader = Handle<ShaderTraits>;

// A new texture of `target` (a 2-D texture: size.z 1; or a 2-D array of size.z layers), level 0 of
// `internalFormat`, sampled nearest; its texels undefined.
inline Texture nearestTexture(GLenum target, GLenum internalFormat, glm::ivec3 size) {
  Texture texture(newTexture(target));
  allocateTexture(texture.id(), target, internalFormat, size);
  setTextureParameter(texture.id(), target, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  setTextureParameter(texture.id(), target, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  return texture;
}

}  // namespace nbody::gl
