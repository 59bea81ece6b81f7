#pragma once
// Builds programs from the GLSL files under shaders/ (embedded in the binary). A variant is its
// #defines (gl/defines.h), placed after the #version line; each file is its own source string with
// a #line directive, so a compile error names the right file and line.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gl/defines.h"
#include "gl/objects.h"

namespace nbody::gl {

struct ShaderStageSource {
  GLenum stage;                    // GL_VERTEX_SHADER, GL_FRAGMENT_SHADER, ...
  std::vector<std::string> files;  // concatenated in order: shared code first
};

// Throws std::runtime_error naming the files, the defines and the compiler's log on failure.
Program buildProgram(const std::vector<ShaderStageSource>& stages, const Defines& defines = {});

std::string_view shaderSource(std::string_view file);  // throws if no such embedded file

// A built program and the locations of its uniforms, each asked of GL once, on its first set, then
// kept: setting a uniform of a program used at every step costs no glGetUniformLocation. A name
// the program does not use has location -1, which GL ignores.
class UniformProgram {
 public:
  explicit UniformProgram(Program program) : program_(std::move(program)) {}
  GLuint id() const { return program_.id(); }
  GLint location(std::string_view name);
  void setUint(std::string_view name, std::size_t value) {
    glProgramUniform1ui(id(), location(name), GLuint(value));
  }
  void setInt(std::string_view name, int value) { glProgramUniform1i(id(), location(name), value); }
  void setFloat(std::string_view name, double value) {
    glProgramUniform1f(id(), location(name), float(value));
  }

 private:
  Program program_;
  std::vector<std::pair<std::string, GLint>> locations_;
};

}  // namespace nbody::gl
