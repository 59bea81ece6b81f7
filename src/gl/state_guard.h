#pragma once
// Saves the pieces of OpenGL state a drawing component changes and puts them back when it goes out
// of scope, so the component can share a context with others (the engines, a UI) that set their own
// state. Covers what the renderers set; extend it when a component changes more. Names deleted
// meanwhile (or a program deleted while current, before the guard) are not put back: see the .cpp.

#include <array>
#include <vector>

#include <glad/gl.h>

namespace nbody::gl {

class StateGuard {
 public:
  // `textureUnits`: the units whose 1-D and 2-D texture and sampler bindings are changed.
  explicit StateGuard(std::vector<GLuint> textureUnits);
  ~StateGuard();
  StateGuard(const StateGuard&) = delete;
  StateGuard& operator=(const StateGuard&) = delete;

 private:
  struct UnitBindings {
    GLuint unit = 0;
    GLint texture2D = 0, texture2DArray = 0, sampler = 0;
  };
  GLint drawFramebuffer_ = 0, readFramebuffer_ = 0, program_ = 0, vertexArray_ = 0,
        activeTexture_ = 0;
  std::array<GLint, 4> viewport_{};
  std::array<GLfloat, 4> clearColor_{};
  GLint blendSourceRgb_ = 0, blendDestinationRgb_ = 0, blendSourceAlpha_ = 0,
        blendDestinationAlpha_ = 0, blendEquationRgb_ = 0, blendEquationAlpha_ = 0;
  GLboolean blend_ = GL_FALSE, depthTest_ = GL_FALSE, scissorTest_ = GL_FALSE, cullFace_ = GL_FALSE;
  std::vector<GLboolean> desktopSwitches_;  // gl::desktopSwitches(), each on or off
  std::array<GLboolean, 4> colorMask_{};
  std::vector<UnitBindings> units_;
};

// Readbacks: binds `buffer` (0: client memory) as the pixel pack buffer with rows packed to whole
// words (GL_PACK_ALIGNMENT 4) for its lifetime, then puts back the binding and alignment it found.
class PackStateGuard {
 public:
  explicit PackStateGuard(GLuint buffer = 0);
  ~PackStateGuard();
  PackStateGuard(const PackStateGuard&) = delete;
  PackStateGuard& operator=(const PackStateGuard&) = delete;

 private:
  GLint buffer_ = 0, alignment_ = 4;
};

}  // namespace nbody::gl
