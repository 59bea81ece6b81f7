#include "diagnostics/force_accuracy.h"

#include <cmath>

#include "diagnostics/gpu_diagnostics.h"
#include "engines/stage_textures.h"
#include "gl/limits.h"

namespace nbody {
namespace {

// The relative error of the engine's own potential, where it has one and the direct sum is affordable.
std::optional<double> potentialError(Engine& engine, const GpuStateView& state, const StepParams& params) {
  if (state.bodyCount > kLargestPotentialCheck) return std::nullopt;
  const std::optional<double> estimate = engine.potentialEnergy(params);
  if (!estimate) return std::nullopt;
  const double direct = GpuDiagnostics().measure(state, params).potential;
  return (*estimate - direct) / std::abs(direct);
}

}  // namespace

AccuracyReport measureAccuracy(Engine& engine, const StepParams& params, const AccuracySample& sample) {
  StageTextures uploaded;  // the state of an engine that keeps it off the GPU
  std::optional<GpuStateView> state = engine.gpuState();
  if (!state) {
    const State bodies = engine.download();
    uploaded.allocate(StageTextures::sizeFor(bodies.size(), gl::limits().maxTextureSize));
    uploaded.upload(bodies);
    state = uploaded.view(bodies.size());
  }
  const std::vector<std::uint32_t> judged =
      forceErrorSamples(state->bodyCount, sample.seed, sample.allUpTo, sample.bodies);
  const std::vector<glm::dvec3> references =
      referenceAccelerations(state->positionMassTexture, state->size, state->bodyCount, params, judged);
  const std::vector<glm::dvec3> all = engine.currentAccelerations(params);
  std::vector<glm::dvec3> accelerations;
  for (std::uint32_t body : judged) accelerations.push_back(all[body]);
  AccuracyReport report;
  report.force = percentilesOf(relativeErrors(accelerations, references));
  report.potentialError = potentialError(engine, *state, params);
  return report;
}

}  // namespace nbody
