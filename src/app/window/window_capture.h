#pragma once
// What a session writes of itself: the picture it shows, and the timestamped names of what the
// panel's buttons save into the current folder.

#include <cstdint>
#include <string>

#include <glm/vec2.hpp>

#include "io/image.h"

namespace nbody {

// Where a session draws: a window's back buffer, or `nbody serve`'s offscreen framebuffer.
struct DrawTarget {
  std::uint32_t framebuffer = 0;      // 0: the window's
  std::uint32_t readBuffer = 0x0405;  // GL_BACK; an offscreen target's GL_COLOR_ATTACHMENT0
  glm::ivec2 size{0, 0};
  bool shown() const { return size.x > 0 && size.y > 0; }
};

// The target's picture as it will be shown (after the panel is drawn, before the swap).
Image readPicture(const DrawTarget& target);
// The absolute path of nbody-YYYYMMDD-HHMMSS followed by `extension` (".png", ".nbody") in the
// current folder, with -2, -3, ... before the extension where a file of that name exists (two
// saves in one second). The output layer publishes the file under it only where no file has
// taken the name in the meantime, else under the next number (io/output_file.h's expectNewName):
// newNameTaken(name) says which, once it is written.
std::string timestampedName(const std::string& extension);
// The same for a GADGET HDF5 snapshot written in `files` parts (app/run/snapshot_parts.h): the
// name of the whole, ending .hdf5, where neither it nor any of its parts (.0.hdf5 ...) exists. Its
// parts are published as they are named: another window saving in this folder in the same second
// is the one case that could replace them.
std::string timestampedPartsName(int files);

}  // namespace nbody
