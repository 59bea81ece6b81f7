#include "render/density_pass.h"

#include <algorithm>

#include "gl/shader_program.h"
#include "gl/state_guard.h"
#include "render/body_points.h"
#include "util/percentile.h"

namespace nbody {
namespace {

// Texture units: the splat reads the state, the map the density and the colormap.
constexpr GLuint kPositionMassUnit = 0, kVelocityUnit = 1, kDensityUnit = 0, kColormapUnit = 2;
constexpr float kSmallestKernelPixels = 4.0f;

}  // namespace

DensityPass::DensityPass()
    : splatProgram_(gl::buildProgram({{GL_VERTEX_SHADER, {"body_fetch.glsl", "density.vert"}},
                                      {GL_FRAGMENT_SHADER, {"density.frag"}}})),
      mapProgram_(gl::buildProgram({{GL_VERTEX_SHADER, {"fullscreen.vert"}},
                                    {GL_FRAGMENT_SHADER, {"colormap.glsl", "density_map.frag"}}})),
      emptyVertexArray_(gl::VertexArray::create()) {
  splatProgram_.setUnit("uPositionMass", kPositionMassUnit);
  splatProgram_.setUnit("uVelocity", kVelocityUnit);
  mapProgram_.setUnit("uDensity", kDensityUnit);
  mapProgram_.setUnit("uColormap", kColormapUnit);
}

void DensityPass::splat(const GpuStateView& bodies, const Camera& camera,
                        const RenderSettings& settings, glm::ivec2 size, glm::vec2 pointSizeRange) {
  density_.resize(size);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, density_.framebuffer());
  glViewport(0, 0, size.x, size.y);
  const GLfloat nothing[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  glClearBufferfv(GL_COLOR, 0, nothing);
  if (bodies.bodyCount == 0) return;
  const gl::UniformProgram& program = splatProgram_;
  glUseProgram(program.id());
  glBindVertexArray(emptyVertexArray_.id());
  const glm::mat4 projection = camera.projection(float(size.x) / float(size.y));
  const glm::mat4 viewProjection = projection * camera.view();
  program.setMat4("uViewProjection", viewProjection);
  program.setFloat("uPixelsPerUnit", 0.5f * float(size.y) * projection[1][1]);
  program.setFloat("uSmoothing", settings.shownSmoothing());
  // A kernel a few pixels wide at least: at 2 pixels a body's mass would land on 1 to 4 pixel
  // centres and vary with its place in the pixel from 0.4 to 1.8 times its mass; from 4 pixels on,
  // within half a percent.
  const float smallest =
      std::min(std::max(pointSizeRange.x, kSmallestKernelPixels), pointSizeRange.y);
  program.setVec2("uPointSizeRange", {smallest, pointSizeRange.y});
  program.setUint("uHiddenComponents", settings.hiddenComponents);
  drawBodiesAdding(bodies, kPositionMassUnit, kVelocityUnit);
}

void DensityPass::map(const RenderSettings& settings, glm::ivec2 origin, GLuint colormap,
                      GLint targetFramebuffer) {
  glDisable(GL_BLEND);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, GLuint(targetFramebuffer));
  glViewport(origin.x, origin.y, density_.size().x, density_.size().y);
  const gl::UniformProgram& program = mapProgram_;
  glUseProgram(program.id());
  glBindVertexArray(emptyVertexArray_.id());
  program.setIVec2("uViewportOrigin", origin);
  program.setVec2("uColorRange", settings.colorRange);
  program.setVec3("uBackground", settings.background);
  gl::bindTextureToUnit(kDensityUnit, GL_TEXTURE_2D, density_.texture());
  gl::bindTextureToUnit(kColormapUnit, GL_TEXTURE_2D, colormap);
  glDrawArrays(GL_TRIANGLES, 0, 3);
}

std::vector<float> DensityPass::lastDensity() const {
  if (!density_.made()) return {};
  const glm::ivec2 size = density_.size();
  std::vector<float> density(std::size_t(size.x) * std::size_t(size.y));
  gl::PackStateGuard pack;
  gl::readTexture(density_.texture(), GL_TEXTURE_2D, 0, {0, 0}, size, GL_RED, GL_FLOAT,
                  density.size() * sizeof(float), density.data());
  return density;
}

glm::vec2 densityRangeOf(std::vector<float> density) {
  std::erase_if(density, [](float value) { return !(value > 0.0f); });
  if (density.empty()) return {0.1f, 1.0f};
  const float high = valueAtPermille(density, 999), low = valueAtPermille(density, 300);
  return high > low ? glm::vec2(low, high) : glm::vec2(high / 10.0f, high);
}

}  // namespace nbody
