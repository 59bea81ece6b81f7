#include "render/point_sprite_renderer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "gl/limits.h"
#include "gl/shader_program.h"
#include "gl/state_guard.h"
#include "render/body_field.h"
#include "render/body_points.h"
#include "render/colormap.h"

namespace nbody {
namespace {

// Texture units: the sprite pass reads the state and the colormap, the tone-map pass the light.
constexpr GLuint kPositionMassUnit = 0, kVelocityUnit = 1, kColormapUnit = 2, kFieldUnit = 3,
                 kLightUnit = 0;
constexpr int kColormapTexels = 256;
// Below about two pixels a round sprite is no longer round and jumps between pixels as it moves.
constexpr float kSmallestPointSize = 2.0f;
// Trails fade only once the factor is this far below 1: a float32 of light near 1 changes in steps
// of 6e-8, so a smaller fade could round back to the same value every picture and never fade. The
// elapsed time is saved up until then; the trail still halves in each half-life.
constexpr double kSmallestFade = 1e-6;

// A pass over the whole viewport that reads the sprites' light (tone_map.frag, trail.frag).
gl::UniformProgram buildFullscreenProgram(const char* fragmentShader) {
  gl::UniformProgram program(gl::buildProgram(
      {{GL_VERTEX_SHADER, {"fullscreen.vert"}}, {GL_FRAGMENT_SHADER, {fragmentShader}}}));
  program.setUnit("uLight", kLightUnit);
  return program;
}

// The blend colour, which gl::StateGuard does not cover: put back by hand.
class BlendColorGuard {
 public:
  BlendColorGuard() { glGetFloatv(GL_BLEND_COLOR, saved_); }
  ~BlendColorGuard() { glBlendColor(saved_[0], saved_[1], saved_[2], saved_[3]); }
  BlendColorGuard(const BlendColorGuard&) = delete;
  BlendColorGuard& operator=(const BlendColorGuard&) = delete;

 private:
  GLfloat saved_[4] = {0, 0, 0, 0};
};

}  // namespace

PointSpriteRenderer::PointSpriteRenderer(SpriteDrawing drawing)
    : drawing_(gl::limits().supports(4, 3) ? drawing
                                           : SpriteDrawing::points),  // no compute: points
      toneMapProgram_(buildFullscreenProgram("tone_map.frag")),
      trailProgram_(buildFullscreenProgram("trail.frag")),
      emptyVertexArray_(gl::VertexArray::create()) {
  pointSizeRange_ = {kSmallestPointSize, std::max(gl::largestPointSize(), kSmallestPointSize)};
}

const gl::UniformProgram& PointSpriteRenderer::spriteProgram(SpritePass pass, ColorBy colorBy,
                                                             bool logScale) {
  const std::tuple key{pass, colorBy, logScale};
  auto found = spritePrograms_.find(key);
  if (found != spritePrograms_.end()) return found->second;
  const std::vector<std::string> sprites{"body_fetch.glsl", "colormap.glsl",
                                         "colour_quantities.glsl", "sprite.glsl"};
  auto withSprites = [&](std::vector<std::string> files) {
    files.insert(files.begin(), sprites.begin(), sprites.end());
    return files;
  };
  const std::vector<gl::ShaderStageSource> stages =
      pass == SpritePass::points
          ? std::vector<gl::ShaderStageSource>{{GL_VERTEX_SHADER,
                                                withSprites({"point_sprite.vert"})},
                                               {GL_FRAGMENT_SHADER,
                                                {"sprite_weight.glsl", "point_sprite.frag"}}}
          : std::vector<gl::ShaderStageSource>{
                {gl::kComputeShader, withSprites({"sprite_weight.glsl", "sprite_splat.comp"})}};
  gl::UniformProgram program(
      gl::buildProgram(stages, {{"COLOR_BY", int(colorBy)},
                                {"BY_COMPONENT", colorBy == ColorBy::Component},
                                {"USES_FIELD", needsBodyField(colorBy)},
                                {"LOG_SCALE", logScale},
                                {"COMPONENT_COUNT", kComponentCount},
                                {"DRAWN_AS_POINTS", pass == SpritePass::points},
                                {"LARGE_SPRITES", pass == SpritePass::largeSplat}}));
  program.setUnit("uPositionMass", kPositionMassUnit);
  program.setUnit("uVelocity", kVelocityUnit);
  program.setUnit("uColormap", kColormapUnit);  // -1 (ignored) when colouring by component
  program.setUnit("uField", kFieldUnit);        // -1 (ignored) but for the colours of a BodyField
  return spritePrograms_.emplace(key, std::move(program)).first->second;
}

GLuint PointSpriteRenderer::colormapTexture(const std::string& name) {
  auto found = colormapTextures_.find(name);
  if (found != colormapTextures_.end()) return found->second.id();
  const Colormap* colormap = findColormap(name);
  if (!colormap) throw std::invalid_argument("unknown colormap " + name);
  // A row of texels: GLSL ES 3.00 (WebGL2) has no 1D textures.
  gl::Texture texture = gl::Texture::create();
  gl::allocateTexture(texture.id(), GL_TEXTURE_2D, GL_RGBA32F, {kColormapTexels, 1, 1});
  gl::writeTexture2D(texture.id(), {0, 0}, {kColormapTexels, 1}, GL_RGBA, GL_FLOAT,
                     colormapTable(*colormap, kColormapTexels).data());
  for (const auto& [parameter, value] : {std::pair{GL_TEXTURE_MIN_FILTER, GL_LINEAR},
                                         {GL_TEXTURE_MAG_FILTER, GL_LINEAR},
                                         {GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE},
                                         {GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE}})
    gl::setTextureParameter(texture.id(), GL_TEXTURE_2D, GLenum(parameter), value);
  const GLuint id = texture.id();
  colormapTextures_.emplace(name, std::move(texture));
  return id;
}

void PointSpriteRenderer::forgetTrails() {
  trail_.reset();
  trailTime_.reset();
}

void PointSpriteRenderer::draw(const GpuStateView& bodies, const Camera& camera,
                               const RenderSettings& settings, double simulationTime) {
  lightUp(bodies, camera, settings, simulationTime, true);
}

void PointSpriteRenderer::addToTrails(const GpuStateView& bodies, const Camera& camera,
                                      const RenderSettings& settings, double simulationTime) {
  if (settings.trailHalfLife > 0.0f && !settings.density)
    lightUp(bodies, camera, settings, simulationTime, false);
}

glm::vec2 PointSpriteRenderer::fitDensityRange(const GpuStateView& bodies, const Camera& camera,
                                               const RenderSettings& settings) {
  RenderSettings splatOnly = settings;
  splatOnly.density = true;
  splatOnly.colorRange = {0.1f, 1.0f};  // not mapped: any range above 0
  lightUp(bodies, camera, splatOnly, 0.0, false);
  return densityRangeOf(density_->lastDensity());
}

// The sprites' light, folded into the trails when they are on, and painted when `paint`.
void PointSpriteRenderer::lightUp(const GpuStateView& bodies, const Camera& camera,
                                  const RenderSettings& settings, double simulationTime,
                                  bool paint) {
  if (!(settings.colorRange.y > settings.colorRange.x))
    throw std::invalid_argument("the colour range must run from a lower to a higher value");
  if (settings.logColours() && !(settings.colorRange.x > 0.0f))
    throw std::invalid_argument(settings.density ? "the density's colour range must lie above 0"
                                                 : "a log colour scale needs a range above 0");
  if (across_ && (settings.density || drawing_ != SpriteDrawing::splat))
    throw std::logic_error("only sprites added up by compute shaders are composited across ranks");
  const GLuint colormap = colormapTexture(settings.colormap);  // may throw: before any GL change
  gl::StateGuard guard({kPositionMassUnit, kVelocityUnit, kColormapUnit, kFieldUnit});
  GLint viewportBox[4] = {0, 0, 0, 0};
  glGetIntegerv(GL_VIEWPORT, viewportBox);
  const Viewport viewport{{viewportBox[0], viewportBox[1]}, {viewportBox[2], viewportBox[3]}};
  if (viewport.size.x <= 0 || viewport.size.y <= 0) return;
  GLint targetFramebuffer = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &targetFramebuffer);

  glBindVertexArray(emptyVertexArray_.id());
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_CULL_FACE);
  gl::writeLinearColour();
  glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  for (GLuint unit : {kPositionMassUnit, kVelocityUnit, kColormapUnit, kFieldUnit})
    glBindSampler(unit, 0);
  if (settings.density) {
    forgetTrails();
    if (!density_) density_.emplace();
    density_->splat(bodies, camera, settings, viewport.size, pointSizeRange_);
    if (paint) density_->map(settings, viewport.origin, colormap, targetFramebuffer);
    return;
  }
  light_.resize(viewport.size);
  gl::bindTextureToUnit(kColormapUnit, GL_TEXTURE_2D, colormap);
  drawSprites(bodies, camera, settings, viewport, simulationTime);
  const bool trails = settings.trailHalfLife > 0.0f;
  if (trails)
    foldIntoTrails(viewport.size, settings.trailHalfLife, simulationTime);
  else
    forgetTrails();
  if (paint)
    toneMap(settings, viewport, targetFramebuffer, trails ? trail_.texture() : light_.texture());
}

// The sprites' light into light_, replacing what it held.
void PointSpriteRenderer::drawSprites(const GpuStateView& bodies, const Camera& camera,
                                      const RenderSettings& settings, const Viewport& viewport,
                                      double simulationTime) {
  if (needsBodyField(settings.colorBy) && bodies.bodyCount > 0) {
    if (!bodies.fieldTexture)
      throw std::logic_error("colouring by " + std::string(colorByName(settings.colorBy)) +
                             " needs the bodies' field (render/body_field.h)");
    gl::bindTextureToUnit(kFieldUnit, GL_TEXTURE_2D_ARRAY, bodies.fieldTexture);
  }
  gl::bindTextureToUnit(kPositionMassUnit, GL_TEXTURE_2D, bodies.positionMassTexture);
  gl::bindTextureToUnit(kVelocityUnit, GL_TEXTURE_2D, bodies.velocityTexture);
  if (drawing_ == SpriteDrawing::splat) {
    const auto& small = spriteProgram(SpritePass::smallSplat, settings.colorBy, settings.logScale);
    const auto& large = spriteProgram(SpritePass::largeSplat, settings.colorBy, settings.logScale);
    for (const gl::UniformProgram* program : {&small, &large})
      setSpriteUniforms(*program, camera, settings, viewport.size, simulationTime);
    if (!splat_) splat_.emplace();
    splat_->draw(bodies.bodyCount, small, large, viewport.size, light_.texture(), across_);
    return;
  }
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, light_.framebuffer());
  glViewport(0, 0, viewport.size.x, viewport.size.y);
  const GLfloat noLight[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  glClearBufferfv(GL_COLOR, 0, noLight);
  if (bodies.bodyCount == 0) return;
  const auto& points = spriteProgram(SpritePass::points, settings.colorBy, settings.logScale);
  setSpriteUniforms(points, camera, settings, viewport.size, simulationTime);
  glUseProgram(points.id());
  drawBodiesAdding(bodies, kPositionMassUnit, kVelocityUnit);
}

void PointSpriteRenderer::setSpriteUniforms(const gl::UniformProgram& program, const Camera& camera,
                                            const RenderSettings& settings, glm::ivec2 viewportSize,
                                            double simulationTime) const {
  const float aspect = float(viewportSize.x) / float(viewportSize.y);
  program.setMat4("uViewProjection", camera.projection(aspect) * camera.view());
  program.setFloat("uPointSize", settings.pointSize);
  program.setFloat("uReferenceDepth", camera.distance);
  program.setVec2("uPointSizeRange", pointSizeRange_);
  program.setVec2("uColorRange", settings.colorRange);
  program.setFloat("uBrightness", settings.brightness);
  program.setVec3s("uComponentColors", settings.componentColors);
  program.setUint("uHiddenComponents", settings.hiddenComponents);
  program.setVec3("uCentre", settings.centre.at(simulationTime));
  program.setVec3("uCentreVelocity", settings.centre.velocity);
}

// After drawSprites: the trail fades by the simulated time since the light last folded in, then
// keeps the new light where it is brighter (trail.frag says why).
void PointSpriteRenderer::foldIntoTrails(glm::ivec2 size, float halfLife, double simulationTime) {
  const bool fresh = trail_.resize(size) || !trailTime_ || simulationTime < *trailTime_;
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, trail_.framebuffer());
  glViewport(0, 0, size.x, size.y);
  if (fresh) {
    const GLfloat noLight[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    glClearBufferfv(GL_COLOR, 0, noLight);
    unfadedTime_ = 0.0;
  } else {
    unfadedTime_ += simulationTime - *trailTime_;
  }
  trailTime_ = simulationTime;
  glUseProgram(trailProgram_.id());
  gl::bindTextureToUnit(kLightUnit, GL_TEXTURE_2D, light_.texture());
  glEnable(GL_BLEND);
  const double kept = std::exp2(-unfadedTime_ / double(halfLife));
  if (kept < 1.0 - kSmallestFade) {
    BlendColorGuard blendColorGuard;
    glBlendColor(GLfloat(kept), GLfloat(kept), GLfloat(kept), GLfloat(kept));
    glBlendEquation(GL_FUNC_ADD);
    glBlendFunc(GL_ZERO, GL_CONSTANT_COLOR);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    unfadedTime_ = 0.0;
  }
  glBlendEquation(GL_MAX);  // the blend factors do not apply to MAX
  glDrawArrays(GL_TRIANGLES, 0, 3);
}

void PointSpriteRenderer::toneMap(const RenderSettings& settings, const Viewport& viewport,
                                  GLint targetFramebuffer, GLuint light) {
  glDisable(GL_BLEND);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, GLuint(targetFramebuffer));
  glViewport(viewport.origin.x, viewport.origin.y, viewport.size.x, viewport.size.y);
  glUseProgram(toneMapProgram_.id());
  toneMapProgram_.setIVec2("uViewportOrigin", viewport.origin);
  toneMapProgram_.setVec3("uBackground", settings.background);
  gl::bindTextureToUnit(kLightUnit, GL_TEXTURE_2D, light);
  glDrawArrays(GL_TRIANGLES, 0, 3);
}

}  // namespace nbody
