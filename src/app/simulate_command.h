#pragma once
// `nbody simulate`: advance a state K steps and write the final state (CSV or a binary snapshot),
// with snapshots and diagnostics along the way when asked.

#include "app/simulate_options.h"

namespace nbody {

int runSimulate(const SimulateOptions& options);

}  // namespace nbody
