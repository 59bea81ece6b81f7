#pragma once
// Waiting on the CPU for the GPU's commands before a fence: in slices of a second, saying on
// stderr once a minute that it still waits (a queue that never ends, e.g. a lost context, shows
// as this line rather than as silence), and failing with one line if the wait itself fails.

#include <glad/gl.h>

namespace nbody::gl {

// Waits until `fence` is signalled; `what` names what waits ("a state readback"). Does not delete
// the fence. On the web it returns at once (WebGL2's reads wait themselves).
void waitForFence(GLsync fence, const char* what);

}  // namespace nbody::gl
