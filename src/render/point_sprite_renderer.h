#pragma once
// Draws the bodies as round, soft, glowing point sprites, reading their positions and velocities
// straight from an engine's state textures (GpuStateView) in the vertex shader: no vertex buffer
// and no copy, whatever the engine. The same object draws the interactive window and `nbody shot`.
//
// Two passes: the sprites add their light into a floating-point target of the viewport's size, then
// a fullscreen pass maps the light to colours over the background (tone_map.frag). The light is
// added up in one of two ways (SpriteDrawing), the same sprites either way (shaders/sprite.glsl):
// by compute shaders in exact sums (SpriteSplat), or as points whose fragments are blended.
//
// The projected density (RenderSettings::density) replaces both passes: DensityPass adds up the
// bodies' mass into a float32 target and maps it through the colormap; trails do not apply.
//
// Trails (RenderSettings::trailHalfLife > 0): a second, float32 target keeps the light of earlier
// pictures, in the picture's pixels. Each picture first fades it by 0.5^(elapsed / half-life) of
// simulated time, then keeps the brighter of it and the new light (trail.frag); the tone map shows
// that instead. Turning the camera therefore smears the trails across the picture. With trails off
// the trail target is not made and the pictures are bit for bit those without it.

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include <glm/vec2.hpp>

#include "engines/engine.h"
#include "gl/objects.h"
#include "gl/shader_program.h"
#include "render/camera.h"
#include "render/density_pass.h"
#include "render/float_target.h"
#include "render/render_settings.h"
#include "render/sprite_splat.h"

namespace nbody {

// How the sprites' light is added up. splat: by compute shaders (render/sprite_splat.h), exact and
// fast where blending units are few (GPUs built for compute) and a dense core makes blends into one
// pixel wait on each other. points: GL points with additive blending, for a GL without compute
// shaders (OpenGL ES 3.0, GL 4.1).
enum class SpriteDrawing { splat, points };

class PointSpriteRenderer {
 public:
  // Needs a current OpenGL 4.5 context.
  explicit PointSpriteRenderer(SpriteDrawing drawing = SpriteDrawing::splat);

  // Paints the current viewport of the bound draw framebuffer: background and bodies. Every piece
  // of GL state it changes is put back before it returns. Throws std::invalid_argument for an
  // unknown colormap or a colour range that is empty. `simulationTime`: when the bodies are there,
  // which only trails need (what elapsed since the last picture fades them; an earlier time than
  // the last picture's starts them afresh).
  void draw(const GpuStateView& bodies, const Camera& camera, const RenderSettings& settings,
            double simulationTime = 0.0);
  // With trails on, adds the bodies' light to the trails without painting anything: for the steps
  // between two pictures, so that a fast body leaves a line rather than a row of dots. Sized by
  // the current viewport, as draw(). With trails off it does nothing.
  void addToTrails(const GpuStateView& bodies, const Camera& camera, const RenderSettings& settings,
                   double simulationTime);

  // Sort-last compositing (`across` not null): every rank draws its own bodies alike, with the same
  // camera and settings, and each draws the picture of every rank's bodies (SpriteSplat's exact
  // sums added across them). Sprites by compute shaders only: not the points, not the density.
  void compositeAcross(const Ranks* across) { across_ = across; }

  // The smallest diameter drawn (smaller sprites are drawn this size and dimmed) and the largest.
  glm::vec2 pointSizeRange() const { return pointSizeRange_; }
  // The colour range that fits the projected density of `bodies` as draw() would show it with
  // `settings` (densityRangeOf): it adds up the density, paints nothing, and reads the density
  // back (a wait for the GPU). Sized by the current viewport, as draw().
  glm::vec2 fitDensityRange(const GpuStateView& bodies, const Camera& camera,
                            const RenderSettings& settings);

 private:
  struct Viewport {
    glm::ivec2 origin, size;
  };
  void lightUp(const GpuStateView& bodies, const Camera& camera, const RenderSettings& settings,
               double simulationTime, bool paint);
  void forgetTrails();
  void drawSprites(const GpuStateView& bodies, const Camera& camera, const RenderSettings& settings,
                   const Viewport& viewport, double simulationTime);
  void foldIntoTrails(glm::ivec2 size, float halfLife, double simulationTime);
  void toneMap(const RenderSettings& settings, const Viewport& viewport, GLint targetFramebuffer,
               GLuint light);
  // The programs that draw the sprites: the points, or the splat's small and large sprites.
  enum class SpritePass { points, smallSplat, largeSplat };
  const gl::UniformProgram& spriteProgram(SpritePass pass, ColorBy colorBy, bool logScale);
  void setSpriteUniforms(const gl::UniformProgram& program, const Camera& camera,
                         const RenderSettings& settings, glm::ivec2 viewportSize,
                         double simulationTime) const;
  GLuint colormapTexture(const std::string& name);

  SpriteDrawing drawing_;
  std::optional<SpriteSplat> splat_;  // made at the first picture splatted
  // By pass, colouring and log scale.
  std::map<std::tuple<SpritePass, ColorBy, bool>, gl::UniformProgram> spritePrograms_;
  gl::UniformProgram toneMapProgram_;
  std::map<std::string, gl::Texture> colormapTextures_;
  FloatTarget light_{GL_RGBA16F, "an RGBA16F texture"};  // the light the sprites add up
  gl::UniformProgram trailProgram_;
  // Float32: half floats would stop fading where a step rounds back to itself.
  FloatTarget trail_{GL_RGBA32F, "an RGBA32F texture, which trails need"};
  std::optional<double>
      trailTime_;             // the simulated time of the light last folded in; none: no trail
  double unfadedTime_ = 0.0;  // simulated time too short to fade by yet (see foldIntoTrails)
  std::optional<DensityPass> density_;  // made at the first density picture
  gl::VertexArray emptyVertexArray_;
  glm::vec2 pointSizeRange_{1.0f, 1.0f};
  const Ranks* across_ = nullptr;  // compositeAcross's
};

}  // namespace nbody
