#pragma once
// Which bodies a click or a dragged box on the picture means, and the selected bodies read back
// from the GPU: the window's picking. Positions on the picture are in pixels from its top left, as
// the mouse reports them (scaled to the framebuffer).

#include <cstdint>
#include <optional>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "engines/engine.h"
#include "gl/objects.h"
#include "gl/shader_program.h"
#include "render/camera.h"
#include "render/float_target.h"

namespace nbody {

// Where `point` lands on a picture `size` pixels large seen by `camera`; none when it is behind the
// camera.
std::optional<glm::vec2> pictureOf(const Camera& camera, glm::vec2 size, glm::vec3 point);

// The shown body (not of a hidden component) whose centre lands nearest `at`, if within
// `withinPixels`; of two equally near, the nearer to the camera.
std::optional<std::size_t> bodyNearest(const State& state, const Camera& camera, glm::vec2 size,
                                       glm::vec2 at, float withinPixels,
                                       std::uint32_t hiddenComponents);
// The shown bodies whose centres land inside the box between two corners, at most `most` of them:
// those nearest the box's middle.
std::vector<std::size_t> bodiesInside(const State& state, const Camera& camera, glm::vec2 size,
                                      glm::vec2 corner, glm::vec2 otherCorner,
                                      std::uint32_t hiddenComponents, std::size_t most);

// A body as the GPU holds it now.
struct BodyNow {
  glm::vec4 positionMass{0.0f}, velocity{0.0f};  // velocity.w: the component
};

// Reads a few bodies of the state textures back at once (the window's picked bodies, every
// frame): one draw copies them into a small float target, one readback returns them, so the wait
// is one, not one a texel (which on NVIDIA's driver cost ~25 ms each after a step).
class BodyReader {
 public:
  static constexpr std::size_t kMostBodies = 64;

  BodyReader();  // needs a current OpenGL 4.5 context
  // Bodies `indices` (at most kMostBodies, each below bodies.bodyCount), in that order. Every
  // piece of GL state it changes is put back.
  std::vector<BodyNow> read(const GpuStateView& bodies, const std::vector<std::size_t>& indices);

 private:
  gl::UniformProgram program_;
  gl::VertexArray emptyVertexArray_;
  FloatTarget target_{GL_RGBA32F, "an RGBA32F texture, which reading picked bodies needs"};
};

}  // namespace nbody
