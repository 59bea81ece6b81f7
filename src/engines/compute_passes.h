#pragma once
// What the compute-shader engines share: the update pass that advances every body from stored
// stage accelerations (shaders/update.comp), the barrier after a stage, dispatch sizes. Any
// engine that writes a stage's acceleration into the stage textures (the compute engine's
// force-free and reused stages, an engine whose force pass is a whole pipeline of its own) ends
// the stage with this pass.

#include <cstddef>
#include <optional>

#include "engines/gpu_engine.h"

namespace nbody {

constexpr int kComputeUpdateGroupSize = 256;  // local_size_x of update.comp and reduce.comp

inline unsigned workGroupsFor(std::size_t items, std::size_t groupSize) {
  return unsigned((items + groupSize - 1) / groupSize);
}

// The next stage fetches what this one stored; readback and drawing may follow too.
void barrierAfterComputeStage();

// Advances the `bodies` bodies of `textures` (only those of `range`, where one is given) by stage
// `pass` from the stored accelerations (pass.storedAccelerations() of them), then
// barrierAfterComputeStage().
void runComputeUpdate(StageKernelCache& kernels, const StageTextures& textures,
                      const StagePass& pass, std::size_t bodies,
                      std::optional<BodyRange> range = std::nullopt);
// Dispatches `kernel` (current, with groups of `groupSize` invocations) over `range`, or over
// `items` from 0.
void dispatchOver(const StageKernel& kernel, std::size_t items, std::size_t groupSize,
                  std::optional<BodyRange> range);

// The defines of a kernel that ends stage `pass` with shaders/rk_combine.glsl reading
// `accelerationInputs` stored accelerations (plain layout) and compute_store.glsl.
gl::Defines computeStageDefines(const StagePass& pass, int accelerationInputs,
                                bool writeAcceleration);

}  // namespace nbody
