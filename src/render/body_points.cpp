#include "render/body_points.h"

namespace nbody {

void drawBodiesAdding(const GpuStateView& bodies, GLuint positionMassUnit, GLuint velocityUnit) {
  if (bodies.bodyCount == 0) return;
  gl::bindTextureToUnit(positionMassUnit, GL_TEXTURE_2D, bodies.positionMassTexture);
  gl::bindTextureToUnit(velocityUnit, GL_TEXTURE_2D, bodies.velocityTexture);
  gl::takePointSizeFromShader(true);
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFunc(GL_ONE, GL_ONE);
  glDrawArrays(GL_POINTS, 0, GLsizei(bodies.bodyCount));
}

}  // namespace nbody
