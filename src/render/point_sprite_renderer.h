#pragma once
// Draws the bodies as round, soft, glowing point sprites, reading their positions and velocities
// straight from an engine's state textures (GpuStateView) in the vertex shader: no vertex buffer and
// no copy, whatever the engine. The same object draws the interactive window and `nbody shot`.
//
// Two passes: the sprites add their light into a floating-point target of the viewport's size
// (additive blending, so the order of the bodies does not matter), then a fullscreen pass maps the
// light to colours over the background (tone_map.frag).

#include <map>
#include <string>

#include <glm/vec2.hpp>

#include "engines/engine.h"
#include "gl/objects.h"
#include "render/camera.h"
#include "render/render_settings.h"

namespace nbody {

class PointSpriteRenderer {
 public:
  PointSpriteRenderer();  // needs a current OpenGL 4.5 context

  // Paints the current viewport of the bound draw framebuffer: background and bodies. Every piece
  // of GL state it changes is put back before it returns. Throws std::invalid_argument for an
  // unknown colormap or a colour range that is empty.
  void draw(const GpuStateView& bodies, const Camera& camera, const RenderSettings& settings);

  // The smallest diameter drawn (smaller sprites are drawn this size and dimmed) and the largest.
  glm::vec2 pointSizeRange() const { return pointSizeRange_; }

 private:
  struct Viewport {
    glm::ivec2 origin, size;
  };
  void resizeLightTarget(glm::ivec2 size);
  void drawSprites(const GpuStateView& bodies, const Camera& camera, const RenderSettings& settings,
                   const Viewport& viewport);
  void toneMap(const RenderSettings& settings, const Viewport& viewport, GLint targetFramebuffer);
  GLuint spriteProgram(ColorBy colorBy);
  GLuint colormapTexture(const std::string& name);

  std::map<ColorBy, gl::Program> spritePrograms_;
  gl::Program toneMapProgram_;
  std::map<std::string, gl::Texture1D> colormapTextures_;
  gl::Texture light_;  // RGBA16F: the light the sprites add up
  gl::Framebuffer lightTarget_;
  glm::ivec2 lightSize_{0, 0};
  gl::VertexArray emptyVertexArray_;
  glm::vec2 pointSizeRange_{1.0f, 1.0f};
};

}  // namespace nbody
