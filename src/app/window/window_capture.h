#pragma once
// What the window writes of itself: the picture it shows, and the timestamped names of what the
// panel's buttons save into the current folder.

#include <string>

#include <glm/vec2.hpp>

#include "io/image.h"

namespace nbody {

// The default framebuffer as it will be shown (after the panel is drawn, before the swap).
Image readWindow(glm::ivec2 size);
// nbody-YYYYMMDD-HHMMSS followed by `extension` (".png", ".nbody"), with -2, -3, ... before the
// extension where a file of that name exists (two saves in one second).
std::string timestampedName(const std::string& extension);

}  // namespace nbody
