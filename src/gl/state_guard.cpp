#include "gl/state_guard.h"

#include "gl/state_access.h"

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

// A saved name is put back only while it still names an object: binding a deleted name is an
// error (GL_INVALID_OPERATION, for a program GL_INVALID_VALUE). Deleting a bound vertex array,
// framebuffer, texture or sampler unbinds it, so only a deletion within the guard's scope can leave
// a stale name; 0 then stands for "nothing", which is what deleting the object left bound.
template <typename IsObject>
GLuint ifAlive(GLint name, IsObject isObject) {
  return name != 0 && isObject(GLuint(name)) ? GLuint(name) : 0u;
}

// A program deleted while current stays current, flagged for deletion, and is freed as soon as
// another is bound (NVIDIA frees it then; so does Mesa): it can never be made current again, so
// such a program is neither saved nor put back.
bool usableProgram(GLuint program) {
  if (program == 0 || !glIsProgram(program)) return false;
  GLint deletePending = GL_FALSE;
  glGetProgramiv(program, GL_DELETE_STATUS, &deletePending);
  return deletePending == GL_FALSE;
}

}  // namespace

StateGuard::StateGuard(std::vector<GLuint> textureUnits) {
  drawFramebuffer_ = integer(GL_DRAW_FRAMEBUFFER_BINDING);
  readFramebuffer_ = integer(GL_READ_FRAMEBUFFER_BINDING);
  program_ = integer(GL_CURRENT_PROGRAM);
  if (!usableProgram(GLuint(program_))) program_ = 0;
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
  for (GLenum capability : desktopSwitches()) desktopSwitches_.push_back(glIsEnabled(capability));
  for (GLuint unit : textureUnits) {
    glActiveTexture(GL_TEXTURE0 + unit);
    units_.push_back({unit, integer(GL_TEXTURE_BINDING_2D), integer(GL_TEXTURE_BINDING_2D_ARRAY),
                      integer(GL_SAMPLER_BINDING)});
  }
  glActiveTexture(GLenum(activeTexture_));
}

StateGuard::~StateGuard() {
  for (const UnitBindings& saved : units_) {
    glActiveTexture(GL_TEXTURE0 + saved.unit);
    glBindTexture(GL_TEXTURE_2D, ifAlive(saved.texture2D, glIsTexture));
    glBindTexture(GL_TEXTURE_2D_ARRAY, ifAlive(saved.texture2DArray, glIsTexture));
    glBindSampler(saved.unit, ifAlive(saved.sampler, glIsSampler));
  }
  glActiveTexture(GLenum(activeTexture_));
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, ifAlive(drawFramebuffer_, glIsFramebuffer));
  glBindFramebuffer(GL_READ_FRAMEBUFFER, ifAlive(readFramebuffer_, glIsFramebuffer));
  glUseProgram(usableProgram(GLuint(program_)) ? GLuint(program_) : 0u);
  glBindVertexArray(ifAlive(vertexArray_, glIsVertexArray));
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
  for (std::size_t k = 0; k < desktopSwitches_.size(); ++k)
    setEnabled(desktopSwitches()[k], desktopSwitches_[k]);
}

PackStateGuard::PackStateGuard(GLuint buffer) {
  glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &buffer_);
  glGetIntegerv(GL_PACK_ALIGNMENT, &alignment_);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, buffer);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
}

PackStateGuard::~PackStateGuard() {
  glPixelStorei(GL_PACK_ALIGNMENT, alignment_);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, GLuint(buffer_));
}

}  // namespace nbody::gl
