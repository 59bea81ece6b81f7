#pragma once
// The state textures the GPU engines share: two ping-ponged sets of RGBA32F textures (position +
// mass, velocity) plus, for the stages of a Runge-Kutta step, the stage positions and velocities
// and the stage accelerations (2-D array textures: body at texel (x, y) sits at (x / L, y + s H)
// of layer x % L, for each of S partial sums s; L = S = 1 is the plain layout). Which texture
// unit each one is read from is stage_units.h's business; how many bodies fit, gpu_capacity.h's.
// The stage textures are allocated for the most stages a method has asked for so far
// (reserveStages): Euler's one stage needs 5 textures, RK4's four 13, so that a one-stage run
// holds the most bodies.
// A velocity texel's w holds the body's component (physics/state.h): every pass that writes a
// velocity copies it from the base velocity (rk_combine.glsl), so it follows the body.

#include <cstddef>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec4.hpp>

#include "gl/gpu_state_view.h"
#include "gl/objects.h"
#include "physics/method.h"
#include "physics/state.h"

namespace nbody {

class StageTextures {
 public:
  // Width and height of the texture that holds `bodyCount` bodies: about square, the width a
  // multiple of kWidthMultiple so every acceleration layout divides it (padding < width). Throws
  // std::invalid_argument for no bodies or more than a `maxTextureSize`-square texture holds.
  static glm::ivec2 sizeFor(std::size_t bodyCount, int maxTextureSize);
  // Whether sizeFor has a size for `bodyCount` bodies (at least one).
  static bool fits(std::size_t bodyCount, int maxTextureSize) {
    return bodyCount <= std::size_t(maxTextureSize) * std::size_t(maxTextureSize);
  }
  static constexpr int kWidthMultiple = 8;

  // (Re)allocates for `size` texels, all cleared to zero (massless padding at rest), with the
  // stages reserved so far.
  void allocate(glm::ivec2 size);
  // Where the passes run on other textures (a decomposed run's held bodies, held_bodies.h), the
  // whole state needs only what is gathered into it: the current state's two textures, or none
  // while nothing reads it. Meanwhile the textures are partial: reserveStages and
  // setAccelerationLayout only record what completeStages() will make.
  //   release(size): frees every texture (a kept copy too), sized `size` for what comes next;
  //   allocateBase(): the current state's textures, cleared, where they are not there;
  //   keepBaseOnly(): frees all but the current state's textures and a kept copy;
  //   completeStages(): every texture again (the current state's kept as they are, the rest
  //     cleared; takeReallocated() then says so).
  void release(glm::ivec2 size);
  void allocateBase();
  void keepBaseOnly();
  void completeStages();
  bool partial() const { return partial_; }
  // Makes sure the textures of a method of `stages` stages are there (adding what is missing:
  // takeReallocated() then says so); throws std::runtime_error, allocating nothing, where the GPU
  // says that its free memory cannot hold them.
  void reserveStages(int stages);
  // (Re)allocates the stage accelerations with `layers` layers (1, or bodies per fragment) and
  // `slices` partial sums.
  void setAccelerationLayout(int layers, int slices);
  glm::ivec2 size() const { return size_; }
  int stagesReserved() const { return stages_; }
  std::size_t texelCount() const { return std::size_t(size_.x) * std::size_t(size_.y); }
  // The bytes of the textures there now.
  std::size_t bytes() const;
  // True when the textures were reallocated since the last call (framebuffers must be rebuilt).
  bool takeReallocated();

  void upload(const State& state);
  State download(std::size_t bodyCount) const;
  GpuStateView view(std::size_t bodyCount) const;
  // After a step of `method`: its result becomes the current state and, for an FSAL method, the
  // last stage's acceleration becomes the first stage's (ReusedForce says when it may be used).
  void finishStep(const Method& method);
  // The current state's texels of the first `count` bodies (a velocity's w: the component), and
  // texels written as the current state (a texture's worth each: texelCount()).
  struct BaseTexels {
    std::vector<glm::vec4> positionMass, velocity;
  };
  BaseTexels readBase(std::size_t count) const;
  void writeBase(const BaseTexels& texels);
  // The texels of `state`'s bodies [first, last), padded to `texelCount` texels.
  static BaseTexels baseTexelsOf(const State& state, std::size_t first, std::size_t last,
                                 std::size_t texelCount);
  // Every texture that holds a texel a body, in an order fixed by the stages reserved (for a
  // decomposed run's moves of bodies between ranks, held_bodies.h): 2-D textures, and the stage
  // accelerations as 2-D arrays of one layer (the plain layout only: else a std::logic_error).
  // Whoever replaces them with textures of another size says so with resizedTo (no texel is
  // cleared or reallocated there; takeReallocated() is not set: every texel moved with its body).
  struct BodyTexture {
    gl::Texture* texture;
    GLenum target;
  };
  std::vector<BodyTexture> bodyTextures();
  void resizedTo(glm::ivec2 size) { size_ = size; }
  // A copy of the current state on the GPU (made when first asked for: 32 bytes a texel more),
  // and the state back from it; restoreKept() before any keep() is a std::logic_error.
  void keep();
  void restoreKept();

  // What stage `stage` reads: the state at the start of the step, the stage's positions, the
  // velocity and acceleration of stage j (velocity 0 is the base velocity).
  GLuint basePositionMass() const { return basePositionMass_[parity_].id(); }
  GLuint baseVelocity() const { return baseVelocity_[parity_].id(); }
  GLuint stagePositionMass(int stage) const;
  GLuint stageVelocity(int stage) const;
  GLuint acceleration(int stage) const { return stageAcceleration_[stage].id(); }
  // What stage `stage` of a `stageCount`-stage method writes.
  GLuint outputPositionMass(int stage, int stageCount) const;
  GLuint outputVelocity(int stage, int stageCount) const;

 private:
  void checkMemoryFor(int stages) const;
  void addAccelerations();  // for every stage reserved, in the current layout

  glm::ivec2 size_{0, 0};
  int stages_ = 0;  // reserved
  int accelerationLayers_ = 0, accelerationSlices_ = 0;
  int parity_ = 0;  // base_[parity_] holds the current state
  bool reallocated_ = false;
  bool partial_ = false;  // release()'s or keepBaseOnly()'s, till completeStages()
  gl::Texture basePositionMass_[2], baseVelocity_[2];
  gl::Texture keptPositionMass_, keptVelocity_;  // keep()'s
  gl::Texture stagePosition_[2];                 // a stage reads one and writes the other
  std::vector<gl::Texture> stageVelocity_;       // index j: velocity of stage j (0: base)
  std::vector<gl::Texture> stageAcceleration_;   // index j: acceleration of stage j
};

// The most stages of any method the program offers: the texture units are counted for it (the
// textures themselves for the methods stepped: reserveStages).
int maxStageCount();
// The component a velocity texel's w holds; throws std::logic_error where it holds none (a pass
// that dropped it).
std::uint8_t componentFromTexel(float w);

}  // namespace nbody
