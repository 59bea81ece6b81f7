#pragma once
// What the tree's GL tests share (tree_gravity_test.cpp: the forces against direct summation;
// tree_pieces_test.cpp: sort, counts, timing, capacity, layouts): a state uploaded in the engines'
// layout, the tree's accelerations read back, the double-precision direct sum, the accuracy
// targets.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <glm/geometric.hpp>
#include <map>
#include <optional>
#include <random>
#include "diagnostics/force_error.h"
#include "engines/cpu_engine.h"
#include "engines/registry.h"
#include "engines/stage_kernel.h"
#include "engines/stage_textures.h"
#include "engines/tree/tree_buffers.h"
#include "engines/tree/tree_gravity.h"
#include "engines/tree/tree_share.h"
#include "gl/gl_test.h"
#include "gl/limits.h"
#include "gl/shader_program.h"
#include "physics/scenes.h"

namespace nbody::tree_test {

using test::GlTest;

// A state's positions on the GPU in the engines' layout, and an acceleration array to write.
struct GpuBodies {
  gl::Texture positionMass, acceleration;
  glm::ivec2 size{0, 0};
  std::size_t count = 0;
};

inline gl::Texture makeTexture(GLenum target, glm::ivec2 size, float clearValue) {
  GLuint id = 0;
  glCreateTextures(target, 1, &id);
  gl::Texture texture(id);
  if (target == GL_TEXTURE_2D_ARRAY)
    glTextureStorage3D(id, 1, GL_RGBA32F, size.x, size.y, 1);
  else
    glTextureStorage2D(id, 1, GL_RGBA32F, size.x, size.y);
  const float clear[4] = {clearValue, clearValue, clearValue, clearValue};
  glClearTexImage(id, 0, GL_RGBA, GL_FLOAT, clear);
  return texture;
}

inline GpuBodies upload(const State& state) {
  GLint largest = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &largest);
  GpuBodies bodies;
  bodies.count = state.size();
  bodies.size = StageTextures::sizeFor(state.size(), largest);
  bodies.positionMass = makeTexture(GL_TEXTURE_2D, bodies.size, 0.0f);
  std::vector<glm::vec4> texels(std::size_t(bodies.size.x) * std::size_t(bodies.size.y),
                                glm::vec4(0.0f));
  std::copy(state.positionMass.begin(), state.positionMass.end(), texels.begin());
  glTextureSubImage2D(bodies.positionMass.id(), 0, 0, 0, bodies.size.x, bodies.size.y, GL_RGBA,
                      GL_FLOAT, texels.data());
  // NaN where nothing was written: a body the tree skips shows.
  bodies.acceleration = makeTexture(GL_TEXTURE_2D_ARRAY, bodies.size, std::nanf(""));
  return bodies;
}

inline std::vector<glm::vec4> readTexels(const GpuBodies& bodies) {
  std::vector<glm::vec4> texels(std::size_t(bodies.size.x) * std::size_t(bodies.size.y));
  glGetTextureImage(bodies.acceleration.id(), 0, GL_RGBA, GL_FLOAT,
                    GLsizei(texels.size() * sizeof(glm::vec4)), texels.data());
  texels.resize(bodies.count);
  return texels;
}

inline std::vector<glm::dvec3> readAccelerations(const GpuBodies& bodies) {
  std::vector<glm::dvec3> result;
  for (const glm::vec4& texel : readTexels(bodies)) result.push_back(glm::dvec3(texel));
  return result;
}

inline std::vector<glm::dvec3> treeAccelerations(TreeGravity& tree, const State& state,
                                                 const StepParams& params,
                                                 const TreeSettings& settings) {
  const GpuBodies bodies = upload(state);
  tree.evaluate(bodies.positionMass.id(), bodies.size, bodies.count, params, settings,
                bodies.acceleration.id());
  return readAccelerations(bodies);
}

// Double-precision direct summation on the CPU: the independent reference.
inline std::vector<glm::dvec3> directAccelerations(const State& state, const StepParams& params) {
  CpuEngine cpu;
  cpu.upload(state);
  std::vector<glm::dvec3> positions, out;
  for (const glm::vec4& p : state.positionMass) positions.push_back(glm::dvec3(p));
  cpu.accelerations(positions, params, out);
  return out;
}

inline StepParams softened(double softening) {
  StepParams params;
  params.softening = softening;
  return params;
}

// The defaults with cells judged by `theta` alone (the geometric opening; 0.43 the default before
// the relative opening).
inline TreeSettings thetaAlone(double theta = 0.43) {
  TreeSettings settings;
  settings.opening = TreeSettings::Opening::geometric;
  settings.theta = theta;
  return settings;
}

inline std::string describe(const ForceErrorPercentiles& p) {
  char text[200];
  std::snprintf(text, sizeof text,
                "median %.3g, 90%% %.3g, 99%% %.3g, 99.9%% %.3g, max %.3g (%zu bodies)", p.median,
                p.p90, p.p99, p.p999, p.max, p.samples);
  return text;
}

// The compute engine's force on the same state (one slice: its own summation order).
inline std::vector<glm::dvec3> computeEngineAccelerations(const State& state,
                                                          const StepParams& params) {
  auto compute = createEngine("compute", {{"slices", "1"}});
  compute->upload(state);
  return compute->currentAccelerations(params);
}

inline bool allFinite(const std::vector<glm::dvec3>& values) {
  for (const glm::dvec3& v : values)
    if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z)) return false;
  return true;
}

// The tree's accuracy targets (docs/tree-gravity.md: median <= 2e-4, 99th percentile <= 1e-3),
// finite results, against `reference` (the direct sum of `state`, when the caller has it already).
inline void expectWithinTargets(TreeGravity& tree, const State& state, const StepParams& params,
                                const std::string& what,
                                const TreeSettings& settings = TreeSettings{},
                                const std::vector<glm::dvec3>* reference = nullptr) {
  const std::vector<glm::dvec3> accelerations = treeAccelerations(tree, state, params, settings);
  EXPECT_TRUE(allFinite(accelerations)) << what;
  const ForceErrorPercentiles errors = percentilesOf(
      relativeErrors(accelerations, reference ? *reference : directAccelerations(state, params)));
  std::printf("%s: %s\n", what.c_str(), describe(errors).c_str());
  EXPECT_LE(errors.median, 2e-4) << what;
  EXPECT_LE(errors.p99, 1e-3) << what;
  EXPECT_TRUE(std::isfinite(errors.max)) << what;
}

inline State uniformBall(std::size_t count, std::uint64_t seed, glm::vec3 centre = glm::vec3(0.0f),
                         float radius = 1.0f, float massEach = -1.0f) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  State state;
  state.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    glm::vec3 p;
    do p = glm::vec3(unit(random), unit(random), unit(random));
    while (glm::dot(p, p) > 1.0f);
    state.positionMass[i] =
        glm::vec4(centre + radius * p, massEach >= 0 ? massEach : 1.0f / float(count));
  }
  return state;
}

// A uniform ball with a core of 1500 bodies in a sphere 1e-5 across: a deep tree.
inline State withDenseCore(State state) {
  const State core = uniformBall(1500, 8, glm::vec3(0.1f, 0.2f, 0.3f), 1e-5f, 1.0f / 4000.0f);
  state.positionMass.insert(state.positionMass.end(), core.positionMass.begin(),
                            core.positionMass.end());
  state.velocity.resize(state.positionMass.size());
  return state;
}

class TreeGravityTest : public GlTest {};

}  // namespace nbody::tree_test
