#include "gl/debug.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <utility>

#include <glad/gl.h>

namespace nbody::gl {
namespace {

struct ErrorName {
  GLenum code;
  const char* name;
};
constexpr ErrorName kErrorNames[] = {
    {GL_INVALID_ENUM, "GL_INVALID_ENUM"},
    {GL_INVALID_VALUE, "GL_INVALID_VALUE"},
    {GL_INVALID_OPERATION, "GL_INVALID_OPERATION"},
    {GL_INVALID_FRAMEBUFFER_OPERATION, "GL_INVALID_FRAMEBUFFER_OPERATION"},
    {GL_OUT_OF_MEMORY, "GL_OUT_OF_MEMORY"}};

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

std::string takeGlErrorCodes() {
  std::string codes;
  for (GLenum error = glGetError(); error != GL_NO_ERROR; error = glGetError()) {
    const auto named =
        std::find_if(std::begin(kErrorNames), std::end(kErrorNames),
                     [error](const ErrorName& known) { return known.code == error; });
    char unknown[16];
    std::snprintf(unknown, sizeof unknown, "0x%04X", error);
    codes += std::string(" ") + (named != std::end(kErrorNames) ? named->name : unknown);
  }
  return codes;
}

bool debugWanted() {
#ifdef NDEBUG
  return std::getenv("NBODY_GL_DEBUG") != nullptr;
#else
  return true;
#endif
}

}  // namespace nbody::gl
