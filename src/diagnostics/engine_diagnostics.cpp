#include "diagnostics/engine_diagnostics.h"

namespace nbody {

Diagnostics EngineDiagnostics::measure(Engine& engine, const StepParams& params) {
  const std::optional<GpuStateView> onGpu = engine.gpuState();
  if (!onGpu) return computeDiagnostics(engine.download(), params);
  if (!gpu_) gpu_ = std::make_unique<GpuDiagnostics>();
  return gpu_->measure(*onGpu, params);
}

}  // namespace nbody
