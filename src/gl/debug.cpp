#include "gl/debug.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <utility>

#include <glad/gl.h>

namespace nbody::gl {
namespace {

std::mutex errorsMutex;
std::vector<std::string> recordedErrors;

// Debug output is OpenGL 4.3's: a build whose loader stops at 4.1 (gl/level.h) records nothing.
#if defined(GL_VERSION_4_3)
void GLAPIENTRY onDebugMessage(GLenum, GLenum type, GLuint id, GLenum severity, GLsizei length,
                               const GLchar* message, const void*) {
  const std::string text(message, length >= 0 ? std::size_t(length) : std::string(message).size());
  if (type == GL_DEBUG_TYPE_ERROR) {
    std::lock_guard lock(errorsMutex);
    recordedErrors.push_back("GL error " + std::to_string(id) + ": " + text);
    std::fprintf(stderr, "GL error %u: %s\n", id, text.c_str());
  } else if (severity == GL_DEBUG_SEVERITY_HIGH) {
    std::fprintf(stderr, "GL: %s\n", text.c_str());
  }
}
#endif

}  // namespace

void installDebugCallback() {
#if defined(GL_VERSION_4_3)
  glEnable(GL_DEBUG_OUTPUT);
  glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
  glDebugMessageCallback(onDebugMessage, nullptr);
#endif
}

std::vector<std::string> takeDebugErrors() {
  std::lock_guard lock(errorsMutex);
  return std::exchange(recordedErrors, {});
}

void throwOnGlError(const char* where) {
  std::string problems;
  for (GLenum error = glGetError(); error != GL_NO_ERROR; error = glGetError()) {
    char code[32];
    std::snprintf(code, sizeof code, " glGetError=0x%04X", error);
    problems += code;
  }
  for (const std::string& message : takeDebugErrors()) problems += " [" + message + "]";
  if (!problems.empty())
    throw std::runtime_error(std::string("OpenGL error in ") + where + ":" + problems);
}

bool debugWanted() {
#ifdef NDEBUG
  return std::getenv("NBODY_GL_DEBUG") != nullptr;
#else
  return true;
#endif
}

}  // namespace nbody::gl
