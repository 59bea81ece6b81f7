#include "render/float_target.h"

#include <stdexcept>

#include "util/system_limits.h"

namespace nbody {

bool FloatTarget::resize(glm::ivec2 size) {
  if (size == size_ && texture_) return false;
  texture_ = gl::nearestTexture(GL_TEXTURE_2D, format_, {size.x, size.y, 1});
  framebuffer_ = gl::Framebuffer::create();
  gl::attachTexture(framebuffer_.id(), GL_COLOR_ATTACHMENT0, texture_.id());
  const GLenum status = gl::framebufferStatus(framebuffer_.id());
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
