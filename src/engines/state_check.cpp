#include "engines/state_check.h"

#include <cmath>

#include "gl/shader_program.h"

namespace nbody {

std::optional<std::size_t> firstNonFiniteBody(const State& state) {
  for (std::size_t i = 0; i < state.size(); ++i) {
    const glm::vec4& p = state.positionMass[i];
    const glm::vec4& v = state.velocity[i];
    const bool finite = std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z) &&
                        std::isfinite(p.w) && std::isfinite(v.x) && std::isfinite(v.y) &&
                        std::isfinite(v.z);
    if (!finite) return i;
  }
  return std::nullopt;
}

std::optional<std::size_t> NonFiniteCheck::firstNonFiniteBody(Engine& engine) {
  if (const auto view = engine.gpuState()) return onGpu(*view);
  return nbody::firstNonFiniteBody(engine.download());
}

std::optional<std::size_t> NonFiniteCheck::onGpu(const GpuStateView& view) {
  if (!program_.id()) {
    program_ = gl::UniformProgram(
        gl::buildProgram({{GL_COMPUTE_SHADER, {"body_layout.glsl", "nonfinite.comp"}}}));
    program_.setUnit("uPositionMass", 0);
    program_.setUnit("uVelocity", 1);
    result_ = gl::Buffer::create();
    glNamedBufferStorage(result_.id(), sizeof(GLuint), nullptr, GL_DYNAMIC_STORAGE_BIT);
  }
  const GLuint none = 0xffffffffu;
  glNamedBufferSubData(result_.id(), 0, sizeof none, &none);
  glUseProgram(program_.id());
  program_.setInt("uBodyCount", int(view.bodyCount));
  glBindTextureUnit(0, view.positionMassTexture);
  glBindTextureUnit(1, view.velocityTexture);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, result_.id());
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);
  glDispatchCompute(GLuint((view.bodyCount + 255) / 256), 1, 1);
  glUseProgram(0);  // nothing of ours stays current: deleting this check never leaves a deleted
                    // program bound
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  GLuint first = none;
  glGetNamedBufferSubData(result_.id(), 0, sizeof first, &first);
  if (first == none) return std::nullopt;
  return std::size_t(first);
}

}  // namespace nbody
