#pragma once
// Drawing without a window: an 8-bit RGBA framebuffer of a given size, read back as an Image.

#include <functional>

#include <glm/vec2.hpp>

#include "io/image.h"

namespace nbody {

// Binds a fresh offscreen framebuffer of `size` with the viewport covering it, calls `draw`, and
// returns what it drew, the top row first. The GL state it changes is put back. Throws
// std::runtime_error if the size is beyond what the GL offers.
Image renderOffscreen(glm::ivec2 size, const std::function<void()>& draw);

}  // namespace nbody
