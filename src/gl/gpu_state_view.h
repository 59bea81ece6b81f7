#pragma once
// Where a GPU engine keeps the current state, for consumers that read it in place (the renderer,
// diagnostics, readback). Both are RGBA32F textures of `size` texels: position + mass (mass in .w)
// and velocity; body i is the texel (i % size.x, i / size.x); texels past bodyCount are massless
// padding at rest. Valid until the engine's next step(), upload() or destruction.

#include <cstddef>

#include <glm/vec2.hpp>

namespace nbody {

struct GpuStateView {
  unsigned int positionMassTexture = 0;  // GL texture names
  unsigned int velocityTexture = 0;
  glm::ivec2 size{0, 0};
  std::size_t bodyCount = 0;
  // A per-body quantity for the colours that need one (render/body_field.h), or 0: x of layer 0 of
  // an RGBA32F 2-D array texture of `size`, body i at the same texel.
  unsigned int fieldTexture = 0;
};

}  // namespace nbody
