#pragma once
// Builds programs from the GLSL files under shaders/ (embedded in the binary). A variant is its
// #defines (gl/defines.h), placed after the #version line; each file is its own source string with
// a #line directive, so a compile error names the right file and line.

#include <string>
#include <string_view>
#include <vector>

#include "gl/defines.h"
#include "gl/objects.h"

namespace nbody::gl {

struct ShaderStageSource {
  GLenum stage;                          // GL_VERTEX_SHADER, GL_FRAGMENT_SHADER, ...
  std::vector<std::string> files;        // concatenated in order: shared code first
};

// Throws std::runtime_error naming the files, the defines and the compiler's log on failure.
Program buildProgram(const std::vector<ShaderStageSource>& stages, const Defines& defines = {});

std::string_view shaderSource(std::string_view file);  // throws if no such embedded file

}  // namespace nbody::gl
