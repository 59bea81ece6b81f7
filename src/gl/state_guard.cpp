#include "gl/state_guard.h"

namespace nbody::gl {
namespace {

GLint integer(GLenum name) {
  GLint value = 0;
  glGetIntegerv(name, &value);
  return value;
}

void setEnabled(GLenum capability, GLboolean enabled) {
  enabled ? glEnable(capability) : glDisable(capability);
}

}  // namespace

StateGuard::StateGuard(std::vector<GLuint> textureUnits) {
  drawFramebuffer_ = integer(GL_DRAW_FRAMEBUFFER_BINDING);
  readFramebuffer_ = integer(GL_READ_FRAMEBUFFER_BINDING);
  program_ = integer(GL_CURRENT_PROGRAM);
  vertexArray_ = integer(GL_VERTEX_ARRAY_BINDING);
  activeTexture_ = integer(GL_ACTIVE_TEXTURE);
  glGetIntegerv(GL_VIEWPORT, viewport_.data());
  glGetFloatv(GL_COLOR_CLEAR_VALUE, clearColor_.data());
  glGetBooleanv(GL_COLOR_WRITEMASK, colorMask_.data());
  blendSourceRgb_ = integer(GL_BLEND_SRC_RGB);
  blendDestinationRgb_ = integer(GL_BLEND_DST_RGB);
  blendSourceAlpha_ = integer(GL_BLEND_SRC_ALPHA);
  blendDestinationAlpha_ = integer(GL_BLEND_DST_ALPHA);
  blendEquationRgb_ = integer(GL_BLEND_EQUATION_RGB);
  blendEquationAlpha_ = integer(GL_BLEND_EQUATION_ALPHA);
  blend_ = glIsEnabled(GL_BLEND);
  depthTest_ = glIsEnabled(GL_DEPTH_TEST);
  scissorTest_ = glIsEnabled(GL_SCISSOR_TEST);
  cullFace_ = glIsEnabled(GL_CULL_FACE);
  programPointSize_ = glIsEnabled(GL_PROGRAM_POINT_SIZE);
  framebufferSrgb_ = glIsEnabled(GL_FRAMEBUFFER_SRGB);
  for (GLuint unit : textureUnits) {
    glActiveTexture(GL_TEXTURE0 + unit);
    units_.push_back({unit, integer(GL_TEXTURE_BINDING_1D), integer(GL_TEXTURE_BINDING_2D),
                      integer(GL_SAMPLER_BINDING)});
  }
  glActiveTexture(GLenum(activeTexture_));
}

StateGuard::~StateGuard() {
  for (const UnitBindings& saved : units_) {
    glActiveTexture(GL_TEXTURE0 + saved.unit);
    glBindTexture(GL_TEXTURE_1D, GLuint(saved.texture1D));
    glBindTexture(GL_TEXTURE_2D, GLuint(saved.texture2D));
    glBindSampler(saved.unit, GLuint(saved.sampler));
  }
  glActiveTexture(GLenum(activeTexture_));
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, GLuint(drawFramebuffer_));
  glBindFramebuffer(GL_READ_FRAMEBUFFER, GLuint(readFramebuffer_));
  glUseProgram(GLuint(program_));
  glBindVertexArray(GLuint(vertexArray_));
  glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
  glClearColor(clearColor_[0], clearColor_[1], clearColor_[2], clearColor_[3]);
  glColorMask(colorMask_[0], colorMask_[1], colorMask_[2], colorMask_[3]);
  glBlendFuncSeparate(GLenum(blendSourceRgb_), GLenum(blendDestinationRgb_),
                      GLenum(blendSourceAlpha_), GLenum(blendDestinationAlpha_));
  glBlendEquationSeparate(GLenum(blendEquationRgb_), GLenum(blendEquationAlpha_));
  setEnabled(GL_BLEND, blend_);
  setEnabled(GL_DEPTH_TEST, depthTest_);
  setEnabled(GL_SCISSOR_TEST, scissorTest_);
  setEnabled(GL_CULL_FACE, cullFace_);
  setEnabled(GL_PROGRAM_POINT_SIZE, programPointSize_);
  setEnabled(GL_FRAMEBUFFER_SRGB, framebufferSrgb_);
}

}  // namespace nbody::gl
