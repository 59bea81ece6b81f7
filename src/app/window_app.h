#pragma once
// The interactive window's loop, in the manner of Dear ImGui's example_glfw_opengl3: set up, loop
// (events, panel, apply settings, step, draw bodies, draw panel, swap), tear down.

#include "app/window_command.h"

namespace nbody {

int runWindowApp(const WindowOptions& options);

}  // namespace nbody
