#pragma once
// A floating-point texture and the framebuffer that draws into it, made at the size asked for and
// made anew when that size changes: the renderer's offscreen passes (light, trails, density).

#include <string>

#include <glm/vec2.hpp>

#include "gl/objects.h"

namespace nbody {

class FloatTarget {
 public:
  // `format`: GL_RGBA16F, GL_RGBA32F, GL_R32F, ...; `purpose` names it in the error of a GL that
  // cannot draw into it.
  FloatTarget(GLenum format, std::string purpose) : format_(format), purpose_(std::move(purpose)) {}

  // Makes the target `size` pixels large unless it is; true when it was made anew (it then holds
  // nothing drawn yet). Throws std::runtime_error where the framebuffer is not complete.
  bool resize(glm::ivec2 size);
  void reset();  // gives the GPU memory back; the next resize makes it anew
  bool made() const { return bool(texture_); }
  GLuint texture() const { return texture_.id(); }
  GLuint framebuffer() const { return framebuffer_.id(); }
  glm::ivec2 size() const { return size_; }

 private:
  GLenum format_;
  std::string purpose_;
  gl::Texture texture_;
  gl::Framebuffer framebuffer_;
  glm::ivec2 size_{0, 0};
};

}  // namespace nbody
