#pragma once
// The projected density (RenderSettings::density): the shown bodies' mass spread by a 2-D kernel
// into a float32 target of the viewport's size (shaders/density.*), then that surface density
// through the colormap on a log scale (density_map.frag). Used by PointSpriteRenderer, inside its
// GL state guard: both passes change the state it puts back.

#include <vector>

#include <glm/vec2.hpp>

#include "engines/engine.h"
#include "gl/objects.h"
#include "gl/shader_program.h"
#include "render/camera.h"
#include "render/float_target.h"
#include "render/render_settings.h"

namespace nbody {

class DensityPass {
 public:
  DensityPass();

  // Adds up the density of `bodies` in a target `size` pixels large (the point sizes drawn between
  // `pointSizeRange`'s ends, but 4 pixels wide at least, where a kernel keeps its mass). Changes
  // the GL state the renderer's guard covers.
  void splat(const GpuStateView& bodies, const Camera& camera, const RenderSettings& settings,
             glm::ivec2 size, glm::vec2 pointSizeRange);
  // Paints the last splat through `colormap` (a 1-D texture) into the viewport at `origin` of
  // `targetFramebuffer`.
  void map(const RenderSettings& settings, glm::ivec2 origin, GLuint colormap,
           GLint targetFramebuffer);
  // The surface density of the last splat, row by row from the bottom: mass per square scene unit
  // at each body's depth. Empty before the first.
  std::vector<float> lastDensity() const;

 private:
  gl::UniformProgram splatProgram_, mapProgram_;
  gl::VertexArray
      emptyVertexArray_;  // the points and the fullscreen triangle read no vertex buffer
  FloatTarget density_{GL_R32F, "an R32F texture, which the projected density needs"};
};

// From the lit pixels of a projected density (those above 0): its 30th to its 99.9th percentile,
// so that the kernels' faint rims (a decade below fades out) and a saturated core take little of
// the colormap. {0.1, 1}
// where nothing is lit; a decade below the top where all pixels are alike.
glm::vec2 densityRangeOf(std::vector<float> density);

}  // namespace nbody
