#pragma once
// The state textures the GPU engines share, and the conventions their stage kernels follow
// (shaders/rk_combine.glsl): two ping-ponged sets of RGBA32F textures (position + mass, velocity)
// plus, for the stages of a Runge-Kutta step, the stage positions and velocities and the stage
// accelerations (2-D array textures: body at texel (x, y) sits at (x / L, y + s H) of layer
// x % L, for each of S partial sums s; L = S = 1 is the plain layout).

#include <vector>

#include <glm/vec2.hpp>

#include "engines/engine.h"
#include "gl/objects.h"

namespace nbody {

class StageTextures {
 public:
  // Width and height of the texture that holds `bodyCount` bodies: about square, the width a
  // multiple of kWidthMultiple so every acceleration layout divides it (padding < width).
  static glm::ivec2 sizeFor(std::size_t bodyCount, int maxTextureSize);
  static constexpr int kWidthMultiple = 8;

  // (Re)allocates for `size` texels, all cleared to zero (massless padding at rest).
  void allocate(glm::ivec2 size);
  // (Re)allocates the stage accelerations with `layers` layers (1, or bodies per fragment) and
  // `slices` partial sums.
  void setAccelerationLayout(int layers, int slices);
  glm::ivec2 size() const { return size_; }
  // True when the textures were reallocated since the last call (framebuffers must be rebuilt).
  bool takeReallocated();

  void upload(const State& state);
  State download(std::size_t bodyCount) const;
  GpuStateView view(std::size_t bodyCount) const;
  // After a step of `method`: its result becomes the current state and, for an FSAL method, the
  // last stage's acceleration becomes the first stage's (ReusedForce says when it may be used).
  void finishStep(const Method& method);

  // Binds what stage `stage` reads to the texture units its program expects (see
  // setStageSamplerUnits): the current state, this stage's positions, the stage velocities up
  // to `stage` and the accelerations of the first `accelerationInputs` stages.
  void bindStageInputs(int stage, int accelerationInputs) const;

  // What stage `stage` of a `stageCount`-stage method writes.
  GLuint outputPositionMass(int stage, int stageCount) const;
  GLuint outputVelocity(int stage, int stageCount) const;
  GLuint acceleration(int stage) const { return stageAcceleration_[stage].id(); }

 private:
  GLuint stagePositionMass(int stage) const;

  glm::ivec2 size_{0, 0};
  int accelerationLayers_ = 0, accelerationSlices_ = 0;
  int parity_ = 0;  // base_[parity_] holds the current state
  bool reallocated_ = false;
  gl::Texture basePositionMass_[2], baseVelocity_[2];
  gl::Texture stagePosition_[2];                // a stage reads one and writes the other
  std::vector<gl::Texture> stageVelocity_;      // index j: velocity of stage j (0: base)
  std::vector<gl::Texture> stageAcceleration_;  // index j: acceleration of stage j
};

// Sets the sampler uniforms of a stage program to the units bindStageInputs uses.
void setStageSamplerUnits(GLuint program, int stage, int accelerationInputs);
// Compute kernels write through images (shaders/compute_store.glsl); these are their units.
void setComputeImageUnits(GLuint program);
void bindComputeOutputs(const StageTextures& textures, int stage, int stageCount);
int maxStageCount();
// What StageTextures::sizeFor and the memory of all textures for `accelerationSlices` need, against
// the GPU's largest texture and (where the driver says, NVIDIA) its free memory.
// Returns the state textures' size for `bodies`.
glm::ivec2 checkGpuCapacity(std::size_t bodies, int accelerationSlices);
// Throws where the stage accelerations of textures of `size`, their slices stacked vertically,
// would be taller than `maxTextureSize` (part of checkGpuCapacity; also for a change of slices).
void checkAccelerationSlicesFit(std::size_t bodies, glm::ivec2 size, int accelerationSlices, int maxTextureSize);

}  // namespace nbody
