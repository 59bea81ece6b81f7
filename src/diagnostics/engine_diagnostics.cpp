#include "diagnostics/engine_diagnostics.h"

#include <vector>

#include "engines/cpu_engine.h"

namespace nbody {
namespace {

// The CPU engine keeps positions and velocities in double between steps; measuring them there
// resolves energy errors far below the 1e-7 that its float32 download would floor them at. Its
// masses are the float32 masses it was given, which the download returns exactly.
Diagnostics measureInDouble(CpuEngine& engine, const StepParams& params) {
  const State state = engine.download();
  std::vector<double> mass(state.size());
  for (std::size_t i = 0; i < state.size(); ++i) mass[i] = state.positionMass[i].w;
  return computeDiagnostics(DoubleBodies{mass, engine.positions(), engine.velocities()}, params);
}

}  // namespace

Diagnostics EngineDiagnostics::measure(Engine& engine, const StepParams& params) {
  if (const std::optional<GpuStateView> onGpu = engine.gpuState()) {
    if (!gpu_) gpu_ = std::make_unique<GpuDiagnostics>();
    return gpu_->measure(*onGpu, params);
  }
  if (auto* cpu = dynamic_cast<CpuEngine*>(&engine)) return measureInDouble(*cpu, params);
  return computeDiagnostics(engine.download(), params);
}

}  // namespace nbody
