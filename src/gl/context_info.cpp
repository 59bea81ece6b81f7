#include "gl/context_info.h"

#include <glad/gl.h>

namespace nbody::gl {
namespace {

std::string glString(GLenum name) {
  const GLubyte* text = glGetString(name);
  return text ? reinterpret_cast<const char*>(text) : "unknown";
}

}  // namespace

ContextInfo queryCurrentContext(std::string platform) {
  ContextInfo info;
  info.platform = std::move(platform);
  info.renderer = glString(GL_RENDERER);
  info.vendor = glString(GL_VENDOR);
  info.version = glString(GL_VERSION);
  glGetIntegerv(GL_MAJOR_VERSION, &info.major);
  glGetIntegerv(GL_MINOR_VERSION, &info.minor);
  return info;
}

}  // namespace nbody::gl
