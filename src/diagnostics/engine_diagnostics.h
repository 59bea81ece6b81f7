#pragma once
// Diagnostics of whatever engine runs: reduced on the GPU where the engine keeps its state there;
// in double from the CPU engine's double state; from the downloaded state for any other engine.

#include <memory>

#include "diagnostics/diagnostics.h"
#include "diagnostics/gpu_diagnostics.h"
#include "engines/engine.h"

namespace nbody {

class EngineDiagnostics {
 public:
  Diagnostics measure(Engine& engine, const StepParams& params);

 private:
  std::unique_ptr<GpuDiagnostics> gpu_;  // made on first use, in the engine's context
};

}  // namespace nbody
