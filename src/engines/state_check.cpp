#include "engines/state_check.h"

#include <cmath>

#include "engines/held_bodies.h"
#include "gl/limits.h"
#include "gl/shader_program.h"
#include "parallel/ranks.h"

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
  HeldBodies* held = engine.heldParts();
  if (held && engine.gatheringDeferred()) return inParts(*held, engine.bodyCount());
  const auto view = engine.gpuState();
  if (view && gl::limits().supports(4, 3)) return onGpu(*view);  // a compute pass
  return nbody::firstNonFiniteBody(engine.download());
}

std::optional<std::size_t> NonFiniteCheck::inParts(HeldBodies& held, std::size_t bodyCount) {
  const std::optional<std::size_t> own = onGpu(held.textures().view(held.count()));
  const std::int64_t none = std::int64_t(bodyCount);
  const std::int64_t first =
      -ranks().maximum(-(own ? std::int64_t(held.readIds().at(*own)) : none));
  if (first == none) return std::nullopt;
  return std::size_t(first);
}

std::optional<std::size_t> NonFiniteCheck::onGpu(const GpuStateView& view) {
  if (!program_.id()) {
    program_ = gl::UniformProgram(gl::buildProgram(
        {{gl::kComputeShader, {"group_rows.glsl", "body_layout.glsl", "nonfinite.comp"}}}));
    program_.setUnit("uPositionMass", 0);
    program_.setUnit("uVelocity", 1);
  }
  const GLuint none = 0xffffffffu;
  result_.fill(1, none);
  glUseProgram(program_.id());
  program_.setInt("uBodyCount", int(view.bodyCount));
  gl::bindTextureToUnit(0, GL_TEXTURE_2D, view.positionMassTexture);
  gl::bindTextureToUnit(1, GL_TEXTURE_2D, view.velocityTexture);
  result_.bindAt(0);
  gl::memoryBarrier(gl::barrier::textureFetch);
  gl::dispatchRows((view.bodyCount + 255) / 256);
  glUseProgram(0);  // nothing of ours stays current: deleting this check never leaves a deleted
                    // program bound
  const GLuint first = result_.read(1)[0];
  if (first == none) return std::nullopt;
  return std::size_t(first);
}

}  // namespace nbody
