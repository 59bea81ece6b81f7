#pragma once
// Drawing without a window: an 8-bit RGBA framebuffer of a given size, read back as an Image.

#include <functional>

#include <glm/vec2.hpp>

#include "gl/objects.h"
#include "io/image.h"

namespace nbody {

// A framebuffer that stays, for drawing many pictures of one size (a movie, a shot with trails).
class OffscreenTarget {
 public:
  // Needs a current OpenGL context. Throws std::runtime_error if the size is beyond what the GL
  // offers.
  explicit OffscreenTarget(glm::ivec2 size);

  glm::ivec2 size() const { return size_; }
  // For a caller that binds it itself (a session drawing into it every frame).
  GLuint framebuffer() const { return framebuffer_.id(); }
  // Binds the framebuffer for drawing and reading, with the viewport covering it, and calls
  // `draw`; the GL state it changes is put back afterwards.
  void draw(const std::function<void()>& draw);
  // What was drawn, the top row first.
  Image read();

 private:
  glm::ivec2 size_;
  gl::Renderbuffer colour_;
  gl::Framebuffer framebuffer_;
};

// Binds a fresh offscreen framebuffer of `size` with the viewport covering it, calls `draw`, and
// returns what it drew, the top row first. The GL state it changes is put back. Throws
// std::runtime_error if the size is beyond what the GL offers.
Image renderOffscreen(glm::ivec2 size, const std::function<void()>& draw);

}  // namespace nbody
