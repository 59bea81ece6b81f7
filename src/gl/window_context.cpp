#include "gl/window_context.h"

#include <cstdlib>

#include <glad/gl.h>
// glad first: GLFW must not pull in a GL header of its own.
#include <GLFW/glfw3.h>
#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
#endif

#include "gl/debug.h"
#include "gl/driver_environment.h"
#include "gl/limits.h"

namespace nbody::gl {
namespace {

std::string lastGlfwError;

void onGlfwError(int code, const char* description) {
  lastGlfwError = description ? description : "GLFW error " + std::to_string(code);
}

std::string glfwProblem(const std::string& what) {
  return what + (lastGlfwError.empty() ? std::string() : ": " + lastGlfwError);
}

// The context a window asks for, and how its GL functions are found.
#if defined(__EMSCRIPTEN__)
// WebGL2 on the page's canvas: OpenGL ES 3.0, whose calls Emscripten binds without a loader.
constexpr const char* kContextName = "WebGL2 (OpenGL ES 3.0)";
constexpr int kMajor = 3, kMinor = 0;
void askForContext(bool) {
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, kMajor);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, kMinor);
}
bool loadGl() { return true; }
void prepareDriver() {}  // the browser's: no driver of this process's

// GL_RENDERER says only "WebKit WebGL"; the GPU behind it, where the browser tells it
// (WEBGL_debug_renderer_info), else nothing. Allocated by malloc.
EM_JS(char*, unmaskedRenderer, (), {
  const gl = GL.currentContext ? GL.currentContext.GLctx : null;
  const info = gl ? gl.getExtension("WEBGL_debug_renderer_info") : null;
  return allocateUTF8(info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : "");
});

ContextInfo describeContext() {
  ContextInfo info = queryCurrentContext("WebGL2 canvas");
  char* gpu = unmaskedRenderer();
  if (gpu != nullptr && *gpu != '\0') info.renderer = gpu;
  std::free(gpu);
  return info;
}
#else
constexpr const char* kContextName = "OpenGL 4.5 core";
constexpr int kMajor = 4, kMinor = 5;
void askForContext(bool debugContext) {
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, kMajor);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, kMinor);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, debugContext ? GLFW_TRUE : GLFW_FALSE);
}
bool loadGl() { return gladLoadGL(glfwGetProcAddress) != 0; }
void prepareDriver() { prepareDriverEnvironment(); }
ContextInfo describeContext() { return queryCurrentContext("GLFW window"); }
#endif

}  // namespace

bool displayNamed(std::string* why) {
  const char* x11 = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  if ((x11 && *x11) || (wayland && *wayland)) return true;
  if (why) *why = "DISPLAY and WAYLAND_DISPLAY are unset";
  return false;
}

std::unique_ptr<WindowContext> WindowContext::create(const std::string& title, int width,
                                                     int height, bool debugContext) {
  prepareDriver();
  glfwSetErrorCallback(onGlfwError);
  lastGlfwError.clear();
  if (!glfwInit()) throw WindowUnavailable(glfwProblem("GLFW could not start"));
  std::unique_ptr<WindowContext> made(
      new WindowContext);  // from here on its destructor terminates GLFW
  askForContext(debugContext);
  made->window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
  if (!made->window_)
    throw WindowUnavailable(
        glfwProblem("no " + std::string(kContextName) + " window could be opened"));
  glfwMakeContextCurrent(made->window_);
  if (!loadGl()) throw WindowUnavailable("glad could not load OpenGL for the window");
  forgetLimits();  // a new context: its own limits
  made->info_ = describeContext();
  if (!made->info_.supports(kMajor, kMinor))
    throw WindowUnavailable("the window's OpenGL " + made->info_.version + " is below " +
                            std::to_string(kMajor) + "." + std::to_string(kMinor));
  if (debugContext) installDebugCallback();
  return made;
}

WindowContext::~WindowContext() {
  forgetLimits();
  if (window_) glfwDestroyWindow(window_);
  glfwTerminate();
}

double WindowContext::refreshRate() const {
  GLFWmonitor* monitor = glfwGetPrimaryMonitor();
  const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
  return mode && mode->refreshRate > 0 ? double(mode->refreshRate) : 60.0;
}

}  // namespace nbody::gl
