#pragma once
// `nbody simulate`: advance a state K steps and write the final state (CSV or a binary snapshot),
// with snapshots and diagnostics along the way when asked.

#include <CLI/CLI.hpp>

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
int runSimulate(const SimulateOptions& options);

// The snapshot path for `step`: the pattern with {step} replaced by the step number, zero-padded
// to 9 digits so that the files sort by step.
std::string snapshotPathFor(const std::string& pattern, long long step);

}  // namespace nbody
