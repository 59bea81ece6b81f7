#pragma once
// `nbody simulate`'s options: what to advance, how far, and where the final state, the snapshots
// along the way and the diagnostics go.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/output_plan.h"
#include "app/run_options.h"

namespace nbody {

struct SimulateOptions {
  RunOptions run;
  long long steps = 10;
  long long checkEvery = 100;  // steps between checks for non-finite values
  std::string output = "nbody-final.csv";
  long long snapshotEvery = 0;  // 0: no snapshots along the way
  std::string snapshotPath = "nbody-step-{step}.nbody";
  std::string diagnostics;  // CSV file; empty: none
  long long diagnosticsEvery = 10;
  bool quiet = false;
};

CLI::App* addSimulateCommand(CLI::App& app, SimulateOptions& options);

// The files simulate writes besides the snapshots, with their options.
std::vector<NamedFile> simulateOutputs(const SimulateOptions& options);

}  // namespace nbody
