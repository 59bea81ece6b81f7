#include "diagnostics/engine_diagnostics.h"

#include "gl/limits.h"

namespace nbody {

Diagnostics EngineDiagnostics::measure(Engine& engine, const StepParams& params) {
  const std::optional<GpuStateView> onGpu = engine.gpuState();
  if (onGpu && gl::limits().supports(4, 3)) {  // compute passes; the subset has none
    if (!gpu_) gpu_ = std::make_unique<GpuDiagnostics>();
    // At the N where the engine estimates the potential itself (a tree), the O(N^2) pass would
    // cost seconds: the sums of per-body terms come from here, the potential from the engine.
    Diagnostics diagnostics = gpu_->measure(*onGpu, params, !engine.estimatesPotential());
    if (engine.estimatesPotential())
      diagnostics.potential = engine.potentialEnergy(params).value_or(0.0);
    // The external potential's energy on the host, in double, from the float32 state.
    if (params.potential) diagnostics.external = externalEnergy(engine.download(), params);
    return diagnostics;
  }
  // An engine that keeps its state in double (the CPU engine) is measured there, resolving
  // energy errors far below the 1e-7 its float32 download would floor them at.
  if (const std::optional<DoubleBodies> exact = engine.doubleState())
    return computeDiagnostics(*exact, params);
  return computeDiagnostics(engine.download(), params);
}

}  // namespace nbody
