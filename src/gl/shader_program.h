#pragma once
// Builds programs from the GLSL files under shaders/ (embedded in the binary). A variant is its
// #defines (gl/defines.h), placed after the #version line; each file is its own source string with
// a #line directive, so a compile error names the right file and line.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <glm/mat4x4.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

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
// kept: setting a uniform of a program used at every step costs no glGetUniformLocation. The one
// way nbody sets uniforms: by name, through glProgramUniform*, so the program need not be bound (at
// the GL 4.1 / ES 3.0 subset, glUniform* with the program made current for the call). A name the
// program does not use (or that its compiler dropped) has location -1, which GL ignores.
class UniformProgram {
 public:
  UniformProgram() = default;  // no program yet: id() is 0
  explicit UniformProgram(Program program) : program_(std::move(program)) {}
  GLuint id() const { return program_.id(); }
  GLint location(std::string_view name) const;

  void setInt(std::string_view name, int value) const;
  void setUint(std::string_view name, std::size_t value) const;
  void setFloat(std::string_view name, double value) const;  // as a float
  void setDouble(std::string_view name, double value) const;
  void setVec2(std::string_view name, glm::vec2 value) const;
  void setIVec2(std::string_view name, glm::ivec2 value) const;
  void setVec3(std::string_view name, const glm::vec3& value) const;
  void setMat4(std::string_view name, const glm::mat4& value) const;
  void setInts(std::string_view name, std::span<const GLint> values) const;
  void setFloats(std::string_view name, std::span<const float> values) const;
  void setUints(std::string_view name, std::span<const GLuint> values) const;
  void setVec3s(std::string_view name, std::span<const glm::vec3> values) const;
  void setVec4s(std::string_view name, std::span<const glm::vec4> values) const;
  // A sampler or image uniform: the texture or image unit it reads.
  void setUnit(std::string_view name, GLuint unit) const { setInt(name, GLint(unit)); }

 private:
  Program program_;
  mutable std::vector<std::pair<std::string, GLint>> locations_;
};

}  // namespace nbody::gl
