#include "app/window/window_app.h"

#include <csignal>

#include <dlfcn.h>

#include <glad/gl.h>
// glad first: GLFW must not pull in a GL header of its own.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>

#include "app/run/engine_session.h"
#include "app/run/stop_signals.h"
#include "app/window/imgui_layer.h"
#include "gl/debug.h"
#include "gl/window_context.h"

namespace nbody {
namespace {

// Xlib ends the process with exit(1) when its connection to the X server is lost (the server
// stopped, an ssh connection gone): the run's temporary files would stay. nbody ends instead as
// SIGHUP, the signal of a lost connection, ends it at once. Xlib is GLFW's, so found at run time.
extern "C" int onXServerLost(void*) {
  endAtOnce(SIGHUP, "the connection to the X server was lost (as by SIGHUP)");
}

// Looked for in the libX11 GLFW loaded (which GLFW 3.4 loads privately), then anywhere; a window
// on Wayland has none, nor has the web page's canvas (no dynamic loading there).
void handleXServerLoss() {
#if defined(__linux__)
  using Handler = int (*)(void*);
  using SetHandler = Handler (*)(Handler);
  void* x11 = ::dlopen("libX11.so.6", RTLD_NOLOAD | RTLD_LAZY);
  void* found = ::dlsym(x11 != nullptr ? x11 : RTLD_DEFAULT, "XSetIOErrorHandler");
  if (found != nullptr) reinterpret_cast<SetHandler>(found)(onXServerLost);
#endif
}

// Dear ImGui's GLFW backend for the window: made after the ImGui context, gone before it.
class ImGuiGlfwBackend {
 public:
  explicit ImGuiGlfwBackend(GLFWwindow* window) {
    ImGui_ImplGlfw_InitForOpenGL(window, true);  // chains to the key callback installed before
  }
  ~ImGuiGlfwBackend() { ImGui_ImplGlfw_Shutdown(); }
  ImGuiGlfwBackend(const ImGuiGlfwBackend&) = delete;
  ImGuiGlfwBackend& operator=(const ImGuiGlfwBackend&) = delete;
};

// The desktop window: GLFW's events and keys in, its back buffer drawn into and swapped.
class WindowFrontEnd final : public SessionFrontEnd {
 public:
  explicit WindowFrontEnd(const WindowOptions& options)
      : context_(gl::WindowContext::create("nbody-gl", options.width, options.height,
                                           gl::debugWanted())),
        imgui_(),
        glfw_((listenForKeys(context_->window(), keys_), context_->window())) {
    handleXServerLoss();
  }

  bool takeInput(KeyPresses& keys) override {
    if (glfwWindowShouldClose(context_->window())) return false;
    glfwPollEvents();
    keys = std::exchange(keys_, {});
    return true;
  }
  DrawTarget target() override {
    DrawTarget target;
    glfwGetFramebufferSize(context_->window(), &target.size.x, &target.size.y);
    return target;
  }
  void waitWhileHidden() override { glfwWaitEventsTimeout(0.1); }
  void beginPanelFrame() override {
    imgui_.beginRendererFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
  }
  void drawPanel() override { imgui_.draw(); }
  void present() override { glfwSwapBuffers(context_->window()); }
  double refreshRate() const override { return context_->refreshRate(); }
  void setVsync(bool on) override { glfwSwapInterval(on ? 1 : 0); }
  const gl::ContextInfo& contextInfo() const override { return context_->info(); }

 private:
  std::unique_ptr<gl::WindowContext> context_;
  KeyPresses keys_;  // GLFW's key callback records into it
  ImGuiLayer imgui_;
  ImGuiGlfwBackend glfw_;
};

}  // namespace

std::unique_ptr<SessionFrontEnd> openWindow(const WindowOptions& options) {
  return std::make_unique<WindowFrontEnd>(options);
}

int runWindow(const WindowOptions& options) {
  return runSession(options, [&] { return openWindow(options); });
}

}  // namespace nbody
