#include "render/float_target.h"

#include <stdexcept>

#include "util/system_limits.h"

namespace nbody {

bool FloatTarget::resize(glm::ivec2 size) {
  if (size == size_ && texture_) return false;
  texture_ = gl::Texture::create();
  glTextureStorage2D(texture_.id(), 1, format_, size.x, size.y);
  glTextureParameteri(texture_.id(), GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTextureParameteri(texture_.id(), GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  framebuffer_ = gl::Framebuffer::create();
  glNamedFramebufferTexture(framebuffer_.id(), GL_COLOR_ATTACHMENT0, texture_.id(), 0);
  const GLenum status = glCheckNamedFramebufferStatus(framebuffer_.id(), GL_DRAW_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE) {
    reset();
    throw std::runtime_error("cannot render into " + purpose_ + " of " + std::to_string(size.x) +
                             " x " + std::to_string(size.y) + " here (framebuffer status " +
                             std::to_string(status) + ")" + limitsThatMayBeBehind());
  }
  size_ = size;
  return true;
}

void FloatTarget::reset() {
  framebuffer_.reset();
  texture_.reset();
  size_ = {0, 0};
}

}  // namespace nbody
