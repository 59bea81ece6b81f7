#pragma once
// Which texture and image units a stage kernel reads and writes, the convention the C++ side and
// shaders/rk_combine.glsl, shaders/compute_store.glsl share: units 0-2 the base position, base
// velocity and stage position; then the velocities of stages 0..s; then the accelerations the
// stage reads. A stage s that reads its own acceleration too needs 2 s + 5 units: OpenGL
// guarantees 16 per shader stage, enough for methods of up to 6 stages.

#include "engines/stage_textures.h"
#include "gl/shader_program.h"

namespace nbody {

// What a stage kernel reads: stage `stage`'s inputs and the accelerations of its first
// `accelerationInputs` stages.
struct StageInputs {
  int stage = 0;
  int accelerationInputs = 0;
};

// Texture units a kernel with these inputs samples.
constexpr int textureUnitsFor(StageInputs inputs) {
  return 4 + inputs.stage + inputs.accelerationInputs;
}
// The most any stage of a method with `stageCount` stages needs (its last stage, reading every
// acceleration).
constexpr int textureUnitsForStages(int stageCount) {
  return textureUnitsFor({stageCount - 1, stageCount});
}
constexpr int kGuaranteedTextureUnits = 16;  // GL_MAX_TEXTURE_IMAGE_UNITS, and the compute twin

// Throws std::runtime_error where a method of maxStageCount() stages needs more texture units
// than `available` (a GPU offering less than the engines bind).
void checkStageUnitsFit(int available, const char* shaderKind);

// Sets the sampler uniforms of a stage program to the units bindStageInputs uses, and the image
// uniforms of a compute kernel to the units bindComputeOutputs uses.
void setStageUnits(const gl::UniformProgram& program, StageInputs inputs);
void bindStageInputs(const StageTextures& textures, StageInputs inputs);
// Compute kernels write through images (shaders/compute_store.glsl).
void bindComputeOutputs(const StageTextures& textures, int stage, int stageCount);

}  // namespace nbody
