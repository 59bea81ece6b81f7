#include "render/picking.h"

#include <algorithm>
#include <limits>

#include <glm/geometric.hpp>

#include "gl/shader_program.h"
#include "gl/state_guard.h"

namespace nbody {
namespace {

struct Projector {
  glm::mat4 viewProjection;
  glm::vec2 size;

  Projector(const Camera& camera, glm::vec2 pictureSize)
      : viewProjection(camera.projection(pictureSize.x / pictureSize.y) * camera.view()),
        size(pictureSize) {}
  // Pixels from the top left, and the depth (clip w); none behind the camera.
  std::optional<glm::vec3> operator()(glm::vec3 point) const {
    const glm::vec4 clip = viewProjection * glm::vec4(point, 1.0f);
    if (!(clip.w > 0.0f)) return std::nullopt;
    return glm::vec3((clip.x / clip.w + 1.0f) / 2.0f * size.x,
                     (1.0f - clip.y / clip.w) / 2.0f * size.y, clip.w);
  }
};

bool shown(const State& state, std::size_t i, std::uint32_t hidden) {
  return !(hidden & (1u << componentOf(state, i)));
}

}  // namespace

std::optional<glm::vec2> pictureOf(const Camera& camera, glm::vec2 size, glm::vec3 point) {
  const auto placed = Projector(camera, size)(point);
  if (!placed) return std::nullopt;
  return glm::vec2(*placed);
}

std::optional<std::size_t> bodyNearest(const State& state, const Camera& camera, glm::vec2 size,
                                       glm::vec2 at, float withinPixels,
                                       std::uint32_t hiddenComponents) {
  const Projector project(camera, size);
  std::optional<std::size_t> best;
  float bestDistance = withinPixels, bestDepth = std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < state.size(); ++i) {
    if (!shown(state, i, hiddenComponents)) continue;
    const auto placed = project(glm::vec3(state.positionMass[i]));
    if (!placed) continue;
    const float distance = glm::length(glm::vec2(*placed) - at);
    if (distance < bestDistance || (distance == bestDistance && best && placed->z < bestDepth)) {
      best = i, bestDistance = distance, bestDepth = placed->z;
    }
  }
  return best;
}

std::vector<std::size_t> bodiesInside(const State& state, const Camera& camera, glm::vec2 size,
                                      glm::vec2 corner, glm::vec2 otherCorner,
                                      std::uint32_t hiddenComponents, std::size_t most) {
  const Projector project(camera, size);
  const glm::vec2 low = glm::min(corner, otherCorner), high = glm::max(corner, otherCorner),
                  middle = (low + high) / 2.0f;
  std::vector<std::pair<float, std::size_t>> inside;
  for (std::size_t i = 0; i < state.size(); ++i) {
    if (!shown(state, i, hiddenComponents)) continue;
    const auto placed = project(glm::vec3(state.positionMass[i]));
    if (!placed || placed->x < low.x || placed->x > high.x || placed->y < low.y ||
        placed->y > high.y)
      continue;
    inside.emplace_back(glm::length(glm::vec2(*placed) - middle), i);
  }
  const std::size_t kept = std::min(most, inside.size());
  std::partial_sort(inside.begin(), inside.begin() + std::ptrdiff_t(kept), inside.end());
  std::vector<std::size_t> indices;
  for (std::size_t k = 0; k < kept; ++k) indices.push_back(inside[k].second);
  return indices;
}

BodyReader::BodyReader()
    : program_(gl::buildProgram({{GL_VERTEX_SHADER, {"body_layout.glsl", "gather_bodies.vert"}},
                                 {GL_FRAGMENT_SHADER, {"gather_bodies.frag"}}},
                                {{"MOST_BODIES", int(kMostBodies)}})),
      emptyVertexArray_(gl::VertexArray::create()) {
  program_.setUnit("uPositionMass", 0);
  program_.setUnit("uVelocity", 1);
}

std::vector<BodyNow> BodyReader::read(const GpuStateView& bodies,
                                      const std::vector<std::size_t>& indices) {
  const std::size_t count = std::min(indices.size(), kMostBodies);
  std::vector<BodyNow> read(count);
  if (count == 0 || bodies.bodyCount == 0) return read;
  std::vector<GLuint> wanted(kMostBodies, 0);
  for (std::size_t k = 0; k < count; ++k)
    wanted[k] = GLuint(std::min(indices[k], bodies.bodyCount - 1));
  const glm::ivec2 size(int(kMostBodies), 2);
  {
    gl::StateGuard guard({0, 1});
    target_.resize(size);
    gl::memoryBarrier(gl::barrier::textureFetch);  // compute engines write the state as images
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target_.framebuffer());
    glViewport(0, 0, size.x, size.y);
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_CULL_FACE);
    gl::takePointSizeFromShader(false);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glUseProgram(program_.id());
    program_.setUints("uIndices", wanted);
    program_.setVec2("uTargetSize", glm::vec2(size));
    glBindVertexArray(emptyVertexArray_.id());
    for (GLuint unit : {0u, 1u}) glBindSampler(unit, 0);
    gl::bindTextureToUnit(0, GL_TEXTURE_2D, bodies.positionMassTexture);
    gl::bindTextureToUnit(1, GL_TEXTURE_2D, bodies.velocityTexture);
    glDrawArrays(GL_POINTS, 0, GLsizei(2 * count));
  }
  std::vector<glm::vec4> texels(std::size_t(size.x) * std::size_t(size.y));
  gl::PackStateGuard pack;
  gl::readTexture(target_.texture(), GL_TEXTURE_2D, 0, {0, 0}, size, GL_RGBA, GL_FLOAT,
                  texels.size() * sizeof(glm::vec4), texels.data());
  for (std::size_t k = 0; k < count; ++k) read[k] = {texels[k], texels[std::size_t(size.x) + k]};
  return read;
}

}  // namespace nbody
