#pragma once
// A desktop window with an OpenGL 4.5 core context (GLFW), made current, with the GL functions
// loaded by glad. The interactive mode draws into it; the engines run in its context.

#include <memory>
#include <stdexcept>
#include <string>

#include "gl/context_info.h"

struct GLFWwindow;

namespace nbody::gl {

// No window could be opened (no display, no GL 4.5 core, GLFW failed): one line saying why.
struct WindowUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class WindowContext {
 public:
  // Throws WindowUnavailable. `debugContext` also installs the KHR_debug error callback.
  static std::unique_ptr<WindowContext> create(const std::string& title, int width, int height,
                                               bool debugContext);
  ~WindowContext();
  WindowContext(const WindowContext&) = delete;
  WindowContext& operator=(const WindowContext&) = delete;

  GLFWwindow* window() const { return window_; }
  const ContextInfo& info() const { return info_; }
  // The monitor's refresh rate in Hz (60 when GLFW cannot tell).
  double refreshRate() const;

 private:
  WindowContext() = default;
  GLFWwindow* window_ = nullptr;
  ContextInfo info_;
};

// Whether the environment names a display at all (DISPLAY or WAYLAND_DISPLAY set); says which.
bool displayNamed(std::string* why);

}  // namespace nbody::gl
