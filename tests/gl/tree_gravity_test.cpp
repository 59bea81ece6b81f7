// The Barnes-Hut tree (src/tree/tree_gravity.h) against direct summation in double precision on
// the CPU (CpuEngine::accelerations), and the force-error report (src/accuracy/force_error.h)
// against the same.

#include <cmath>
#include <cstring>
#include <map>
#include <random>

#include <glm/geometric.hpp>

#include "accuracy/force_error.h"
#include "engines/cpu_engine.h"
#include "engines/stage_kernel.h"
#include "engines/stage_textures.h"
#include "gl/gl_test.h"
#include "gl/shader_program.h"
#include "physics/scenes.h"
#include "tree/tree_gravity.h"

namespace nbody {
namespace {

using test::GlTest;

// A state's positions on the GPU in the engines' layout, and an acceleration array to write.
struct GpuBodies {
  gl::Texture positionMass, acceleration;
  glm::ivec2 size{0, 0};
  std::size_t count = 0;
};

gl::Texture makeTexture(GLenum target, glm::ivec2 size, float clearValue) {
  GLuint id = 0;
  glCreateTextures(target, 1, &id);
  gl::Texture texture(id);
  if (target == GL_TEXTURE_2D_ARRAY) glTextureStorage3D(id, 1, GL_RGBA32F, size.x, size.y, 1);
  else glTextureStorage2D(id, 1, GL_RGBA32F, size.x, size.y);
  const float clear[4] = {clearValue, clearValue, clearValue, clearValue};
  glClearTexImage(id, 0, GL_RGBA, GL_FLOAT, clear);
  return texture;
}

GpuBodies upload(const State& state) {
  GLint largest = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &largest);
  GpuBodies bodies;
  bodies.count = state.size();
  bodies.size = StageTextures::sizeFor(state.size(), largest);
  bodies.positionMass = makeTexture(GL_TEXTURE_2D, bodies.size, 0.0f);
  std::vector<glm::vec4> texels(std::size_t(bodies.size.x) * std::size_t(bodies.size.y), glm::vec4(0.0f));
  std::copy(state.positionMass.begin(), state.positionMass.end(), texels.begin());
  glTextureSubImage2D(bodies.positionMass.id(), 0, 0, 0, bodies.size.x, bodies.size.y, GL_RGBA, GL_FLOAT,
                      texels.data());
  // NaN where nothing was written: a body the tree skips shows.
  bodies.acceleration = makeTexture(GL_TEXTURE_2D_ARRAY, bodies.size, std::nanf(""));
  return bodies;
}

std::vector<glm::vec4> readTexels(const GpuBodies& bodies) {
  std::vector<glm::vec4> texels(std::size_t(bodies.size.x) * std::size_t(bodies.size.y));
  glGetTextureImage(bodies.acceleration.id(), 0, GL_RGBA, GL_FLOAT, GLsizei(texels.size() * sizeof(glm::vec4)),
                    texels.data());
  texels.resize(bodies.count);
  return texels;
}

std::vector<glm::dvec3> readAccelerations(const GpuBodies& bodies) {
  std::vector<glm::dvec3> result;
  for (const glm::vec4& texel : readTexels(bodies)) result.push_back(glm::dvec3(texel));
  return result;
}

std::vector<glm::dvec3> treeAccelerations(TreeGravity& tree, const State& state, const StepParams& params,
                                          const TreeSettings& settings) {
  const GpuBodies bodies = upload(state);
  tree.evaluate(bodies.positionMass.id(), bodies.size, bodies.count, params, settings, bodies.acceleration.id());
  return readAccelerations(bodies);
}

// Double-precision direct summation on the CPU: the independent reference.
std::vector<glm::dvec3> directAccelerations(const State& state, const StepParams& params) {
  CpuEngine cpu;
  cpu.upload(state);
  std::vector<glm::dvec3> positions, out;
  for (const glm::vec4& p : state.positionMass) positions.push_back(glm::dvec3(p));
  cpu.accelerations(positions, params, out);
  return out;
}

StepParams softened(double softening) {
  StepParams params;
  params.softening = softening;
  return params;
}

std::string describe(const ForceErrorPercentiles& p) {
  char text[200];
  std::snprintf(text, sizeof text, "median %.3g, 90%% %.3g, 99%% %.3g, 99.9%% %.3g, max %.3g (%zu bodies)",
                p.median, p.p90, p.p99, p.p999, p.max, p.samples);
  return text;
}

ForceErrorPercentiles treeErrors(TreeGravity& tree, const State& state, const StepParams& params,
                                 const TreeSettings& settings) {
  return percentilesOf(relativeErrors(treeAccelerations(tree, state, params, settings), directAccelerations(state, params)));
}

class TreeGravityTest : public GlTest {};

TEST_F(TreeGravityTest, SmallPlummerSphereMatchesDirectSummation) {
  TreeGravity tree;
  const State state = findScene("plummer")->generate(1000, 5);
  const ForceErrorPercentiles errors = treeErrors(tree, state, softened(0.01), TreeSettings{});
  std::printf("plummer 1000: %s\n", describe(errors).c_str());
  EXPECT_LE(errors.median, 2e-4);
  EXPECT_LE(errors.p99, 1e-3);
}

}  // namespace
}  // namespace nbody
