#pragma once
// The interactive window, in the manner of Dear ImGui's example_glfw_opengl3: set up; every frame
// poll events, show the panel, apply what changed, step, draw the bodies and the panel, present;
// tear down.

#include <memory>

#include "app/live/window_options.h"
#include "app/window/live_session.h"

namespace nbody {

// The window as a session's front-end: a desktop window, or the web page's canvas (app/web/).
// Throws gl::WindowUnavailable.
std::unique_ptr<SessionFrontEnd> openWindow(const WindowOptions& options);

// Throws gl::WindowUnavailable when no window opens (main turns it into one line and exit 1, or
// falls back to the benchmark when the user named no command).
int runWindow(const WindowOptions& options);

}  // namespace nbody
