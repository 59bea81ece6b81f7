#pragma once
// The per-body quantities that colours need from all the bodies at once: each body's potential for
// ColorBy::Energy (G phi_i through the tree, softened as the forces), its local density for
// ColorBy::Density (the mass of the smallest tree cell of 32 bodies or more over the cube of its
// largest side). Measured on the GPU from a state on the GPU, by a tree of its own (whatever the
// engine), into a float texture the sprites read (GpuStateView::fieldTexture).

#include <cstddef>
#include <memory>
#include <vector>

#include <glm/vec2.hpp>

#include "engines/tree/tree_gravity.h"
#include "gl/gpu_state_view.h"
#include "gl/objects.h"
#include "physics/state.h"
#include "render/render_settings.h"

namespace nbody {

// Whether colouring by `colorBy` needs a BodyField.
bool needsBodyField(ColorBy colorBy);

class BodyField {
 public:
  BodyField();
  ~BodyField();
  BodyField(BodyField&&) noexcept;
  BodyField& operator=(BodyField&&) noexcept;

  // Measures what `colorBy` needs of `bodies` (its G and softening from `params`); nothing for a
  // colour that needs nothing. Needs OpenGL 4.3 compute shaders; leaves no program bound.
  void measure(const GpuStateView& bodies, ColorBy colorBy, const StepParams& params);
  // `bodies` with the field measured last as its fieldTexture (bodies as they were before any).
  GpuStateView attachedTo(GpuStateView bodies) const;
  // The field measured last, in body order (a readback: waits for the GPU); empty before any.
  std::vector<float> values() const;

 private:
  std::unique_ptr<TreeGravity> tree_;  // made at the first measure
  gl::Texture texture_;                // RGBA32F 2-D array, one layer: x the value
  glm::ivec2 size_{0, 0};
  std::size_t bodyCount_ = 0;
};

}  // namespace nbody
