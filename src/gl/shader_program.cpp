#include "gl/shader_program.h"

#include <glm/gtc/type_ptr.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "gl/level.h"

namespace nbody::gl {

const std::map<std::string_view, std::string_view>& embeddedShaderSources();  // generated

namespace {

// NBODY_SHADER_DIR=DIR: a file of DIR stands in for the embedded shader of its name, so a variant
// of a shader can be measured on a machine without building there (docs/development.md). Each
// file is read once; the returned views stay valid for the process's life.
const std::string* shaderFromFolder(std::string_view file) {
  static std::mutex guard;
  static std::map<std::string, std::string, std::less<>> read;
  const char* folder = std::getenv("NBODY_SHADER_DIR");
  if (folder == nullptr || *folder == '\0') return nullptr;
  const std::string path = (std::filesystem::path(folder) / file).string();
  std::lock_guard lock(guard);
  if (auto found = read.find(path); found != read.end()) return &found->second;
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return nullptr;
  std::ostringstream text;
  text << stream.rdbuf();
  return &read.emplace(path, text.str()).first->second;
}

// The target's language for vertex and fragment shaders (gl/level.h); 4.50 for compute shaders.
std::string versionLine(GLenum stage) {
  return std::string(stage == kComputeShader ? kComputePreamble : glTarget().preamble);
}

}  // namespace

std::string_view shaderSource(std::string_view file) {
  if (const std::string* variant = shaderFromFolder(file)) return *variant;
  const auto& sources = embeddedShaderSources();
  auto found = sources.find(file);
  if (found == sources.end())
    throw std::runtime_error("missing shader file shaders/" + std::string(file));
  return found->second;
}

namespace {

std::string joined(const std::vector<std::string>& items, std::string_view separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : std::string(separator)) + item;
  return text;
}

std::string infoLog(GLuint object, bool isProgram) {
  GLint length = 0;
  isProgram ? glGetProgramiv(object, GL_INFO_LOG_LENGTH, &length)
            : glGetShaderiv(object, GL_INFO_LOG_LENGTH, &length);
  std::string log(std::size_t(std::max(length, 1)), '\0');
  isProgram ? glGetProgramInfoLog(object, length, nullptr, log.data())
            : glGetShaderInfoLog(object, length, nullptr, log.data());
  return log.c_str();
}

Shader compile(const ShaderStageSource& stage, const std::vector<std::string>& defines) {
  // Source string 0 is the preamble; file k is source string k + 1, which #line reports.
  std::vector<std::string> parts{versionLine(stage.stage)};
  for (const std::string& define : defines) parts[0] += "#define " + define + "\n";
  for (std::size_t k = 0; k < stage.files.size(); ++k)
    parts.push_back("#line 1 " + std::to_string(k + 1) + "\n" +
                    std::string(shaderSource(stage.files[k])) + "\n");
  std::vector<const char*> pointers;
  for (const std::string& part : parts) pointers.push_back(part.c_str());

  Shader shader(glCreateShader(stage.stage));
  glShaderSource(shader.id(), GLsizei(pointers.size()), pointers.data(), nullptr);
  glCompileShader(shader.id());
  GLint ok = GL_FALSE;
  glGetShaderiv(shader.id(), GL_COMPILE_STATUS, &ok);
  if (!ok) {
    std::string fileList;
    for (std::size_t k = 0; k < stage.files.size(); ++k)
      fileList += (k ? ", " : "") + std::to_string(k + 1) + " = shaders/" + stage.files[k];
    throw std::runtime_error("shader compilation failed (source " + fileList +
                             "; defines: " + (defines.empty() ? "none" : joined(defines, " ")) +
                             "):\n" + infoLog(shader.id(), false));
  }
  return shader;
}

}  // namespace

Program buildProgram(const std::vector<ShaderStageSource>& stages, const Defines& typedDefines) {
  const std::vector<std::string> defines = typedDefines.lines();
  Program program = Program::create();
  std::vector<Shader> shaders;
  for (const ShaderStageSource& stage : stages) {
    shaders.push_back(compile(stage, defines));
    glAttachShader(program.id(), shaders.back().id());
  }
  glLinkProgram(program.id());
  GLint ok = GL_FALSE;
  glGetProgramiv(program.id(), GL_LINK_STATUS, &ok);
  if (!ok) {
    std::vector<std::string> files;
    for (const ShaderStageSource& stage : stages)
      files.insert(files.end(), stage.files.begin(), stage.files.end());
    throw std::runtime_error("shader link failed (" + joined(files, ", ") +
                             "; defines: " + (defines.empty() ? "none" : joined(defines, " ")) +
                             "):\n" + infoLog(program.id(), true));
  }
  for (const Shader& shader : shaders) glDetachShader(program.id(), shader.id());
  return program;
}

namespace {

// A uniform of `program` set by glProgramUniform* at GL 4.5 (`direct`), or, at the GL 4.1 / ES 3.0
// subset (ES 3.0 has no glProgramUniform), by glUniform* (`bound`) with the program current for
// the call and the program current before put back.
template <typename Direct, typename Bound>
void setUniform(GLuint program, Direct direct, Bound bound) {
  if (directStateAccess()) return direct();
  GLint current = 0;
  glGetIntegerv(GL_CURRENT_PROGRAM, &current);
  if (GLuint(current) != program) glUseProgram(program);
  bound();
  // A program deleted while current goes once another is: then there is none to put back.
  if (GLuint(current) != program && (current == 0 || glIsProgram(GLuint(current))))
    glUseProgram(GLuint(current));
}

}  // namespace

// UNIFORM(suffix, location, values...): the uniform set either way (a loader without GL 4.1's
// glProgramUniform, ES 3.0's, compiles the bound way alone).
#if defined(GL_VERSION_4_1)
#define UNIFORM(suffix, ...)                                      \
  setUniform(                                                     \
      id(), [&] { glProgramUniform##suffix(id(), __VA_ARGS__); }, \
      [&] { glUniform##suffix(__VA_ARGS__); })
#else
#define UNIFORM(suffix, ...) \
  setUniform(                \
      id(), [] {}, [&] { glUniform##suffix(__VA_ARGS__); })
#endif

GLint UniformProgram::location(std::string_view name) const {
  for (const auto& [known, location] : locations_)
    if (known == name) return location;
  const std::string text(name);
  locations_.emplace_back(text, glGetUniformLocation(id(), text.c_str()));
  return locations_.back().second;
}

void UniformProgram::setInt(std::string_view name, int value) const {
  UNIFORM(1i, location(name), value);
}

void UniformProgram::setUint(std::string_view name, std::size_t value) const {
  UNIFORM(1ui, location(name), GLuint(value));
}

void UniformProgram::setFloat(std::string_view name, double value) const {
  UNIFORM(1f, location(name), float(value));
}

void UniformProgram::setDouble(std::string_view name, [[maybe_unused]] double value) const {
#if defined(GL_VERSION_4_0)
  UNIFORM(1d, location(name), value);
#else
  throw std::logic_error("a double uniform (" + std::string(name) + ") without GL 4.0's doubles");
#endif
}

void UniformProgram::setVec2(std::string_view name, glm::vec2 value) const {
  UNIFORM(2f, location(name), value.x, value.y);
}

void UniformProgram::setIVec2(std::string_view name, glm::ivec2 value) const {
  UNIFORM(2i, location(name), value.x, value.y);
}

void UniformProgram::setVec3(std::string_view name, const glm::vec3& value) const {
  UNIFORM(3fv, location(name), 1, glm::value_ptr(value));
}

void UniformProgram::setMat4(std::string_view name, const glm::mat4& value) const {
  UNIFORM(Matrix4fv, location(name), 1, GL_FALSE, glm::value_ptr(value));
}

void UniformProgram::setInts(std::string_view name, std::span<const GLint> values) const {
  UNIFORM(1iv, location(name), GLsizei(values.size()), values.data());
}

void UniformProgram::setFloats(std::string_view name, std::span<const float> values) const {
  UNIFORM(1fv, location(name), GLsizei(values.size()), values.data());
}

void UniformProgram::setUints(std::string_view name, std::span<const GLuint> values) const {
  UNIFORM(1uiv, location(name), GLsizei(values.size()), values.data());
}

void UniformProgram::setVec3s(std::string_view name, std::span<const glm::vec3> values) const {
  if (values.empty()) return;
  UNIFORM(3fv, location(name), GLsizei(values.size()), glm::value_ptr(values[0]));
}

void UniformProgram::setVec4s(std::string_view name, std::span<const glm::vec4> values) const {
  if (values.empty()) return;
  UNIFORM(4fv, location(name), GLsizei(values.size()), glm::value_ptr(values[0]));
}

}  // namespace nbody::gl
