#pragma once
// What the window writes of itself: the picture it shows, and the timestamped names of what the
// panel's buttons save into the current folder.

#include <string>

#include <glm/vec2.hpp>

#include "io/image.h"

namespace nbody {

// The default framebuffer as it will be shown (after the panel is drawn, before the swap).
Image readWindow(glm::ivec2 size);
// The absolute path of nbody-YYYYMMDD-HHMMSS followed by `extension` (".png", ".nbody") in the
// current folder, with -2, -3, ... before the extension where a file of that name exists (two
// saves in one second). The output layer publishes the file under it only where no file has
// taken the name in the meantime, else under the next number (io/output_file.h's expectNewName):
// newNameTaken(name) says which, once it is written.
std::string timestampedName(const std::string& extension);

}  // namespace nbody
