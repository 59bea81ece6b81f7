#include "engines/compute_passes.h"

namespace nbody {
namespace {

const KernelSources kUpdate{{{GL_COMPUTE_SHADER,
                              {"group_rows.glsl", "body_layout.glsl", "rk_combine.glsl",
                               "compute_store.glsl", "update.comp"}}}};

}  // namespace

void barrierAfterComputeStage() {
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT |
                  GL_SHADER_STORAGE_BARRIER_BIT);
}

gl::Defines computeStageDefines(const StagePass& pass, int accelerationInputs,
                                bool writeAcceleration) {
  return {{"STAGE", pass.stage},
          {"ACCELERATION_INPUTS", accelerationInputs},
          {"ACCELERATION_LAYERS", 1},
          {"ACCELERATION_SLICES", 1},
          {"WRITE_ACCELERATION", writeAcceleration ? 1 : 0}};
}

void dispatchOver(const StageKernel& kernel, std::size_t items, std::size_t groupSize,
                  std::optional<BodyRange> range) {
  const BodyRange covered = range.value_or(BodyRange{0, items});
  kernel.cover(covered.first, covered.last);
  gl::dispatchRows(workGroupsFor(covered.size(), groupSize));
}

void runComputeUpdate(StageKernelCache& kernels, const StageTextures& textures,
                      const StagePass& pass, std::size_t bodies, std::optional<BodyRange> range) {
  // WRITE_ACCELERATION 0: a stored acceleration is in place already, a force-free one never read.
  const int inputs = pass.storedAccelerations();
  const StageKernel& update =
      kernels.get(kUpdate, computeStageDefines(pass, inputs, false), {pass.stage, inputs});
  update.use(pass.method, pass.params, pass.stage, bodies, textures.texelCount());
  bindStageInputs(textures, {pass.stage, inputs});
  bindComputeOutputs(textures, pass.stage, pass.stageCount());
  dispatchOver(update, bodies, kComputeUpdateGroupSize, range);
  barrierAfterComputeStage();
}

}  // namespace nbody
