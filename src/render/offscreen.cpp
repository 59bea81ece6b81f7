#include "render/offscreen.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "gl/state_guard.h"
#include "util/system_limits.h"

namespace nbody {
namespace {

void requireSupportedSize(glm::ivec2 size) {
  GLint largestRenderbuffer = 0, largestViewport[2] = {0, 0};
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &largestRenderbuffer);
  glGetIntegerv(GL_MAX_VIEWPORT_DIMS, largestViewport);
  const int largestWidth = std::min(largestRenderbuffer, largestViewport[0]);
  const int largestHeight = std::min(largestRenderbuffer, largestViewport[1]);
  if (size.x < 1 || size.y < 1 || size.x > largestWidth || size.y > largestHeight)
    throw std::runtime_error("cannot render " + std::to_string(size.x) + " x " +
                             std::to_string(size.y) + " pixels here: the largest is " +
                             std::to_string(largestWidth) + " x " + std::to_string(largestHeight));
}

// OpenGL's rows start at the bottom; images start at the top.
void flipRows(Image& image) {
  const std::size_t rowBytes = std::size_t(image.width) * 4;
  std::vector<std::uint8_t> row(rowBytes);
  for (int y = 0; y < image.height / 2; ++y) {
    std::uint8_t* top = image.pixel(0, y);
    std::uint8_t* bottom = image.pixel(0, image.height - 1 - y);
    std::memcpy(row.data(), top, rowBytes);
    std::memcpy(top, bottom, rowBytes);
    std::memcpy(bottom, row.data(), rowBytes);
  }
}

}  // namespace

OffscreenTarget::OffscreenTarget(glm::ivec2 size) : size_(size) {
  requireSupportedSize(size);
  colour_ = gl::Renderbuffer::create();
  gl::allocateRenderbuffer(colour_.id(), GL_RGBA8, size);
  framebuffer_ = gl::Framebuffer::create();
  gl::attachRenderbuffer(framebuffer_.id(), GL_COLOR_ATTACHMENT0, colour_.id());
  if (gl::framebufferStatus(framebuffer_.id()) != GL_FRAMEBUFFER_COMPLETE)
    throw std::runtime_error("cannot render into an RGBA8 framebuffer of " +
                             std::to_string(size.x) + " x " + std::to_string(size.y) + " here" +
                             limitsThatMayBeBehind());
}

void OffscreenTarget::draw(const std::function<void()>& draw) {
  gl::StateGuard guard({});
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_.id());
  glViewport(0, 0, size_.x, size_.y);
  draw();
}

Image OffscreenTarget::read() {
  Image image(size_.x, size_.y);
  {
    gl::StateGuard guard({});
    // RGBA8 rows are whole multiples of 4 bytes, so the default pack alignment fits.
    glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer_.id());
    glReadPixels(0, 0, size_.x, size_.y, GL_RGBA, GL_UNSIGNED_BYTE, image.rgba.data());
  }
  flipRows(image);
  return image;
}

Image renderOffscreen(glm::ivec2 size, const std::function<void()>& draw) {
  OffscreenTarget target(size);
  target.draw(draw);
  return target.read();
}

}  // namespace nbody
