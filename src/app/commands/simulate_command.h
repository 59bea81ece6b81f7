#pragma once
// `nbody simulate`: advance a state K steps and write the final state (CSV or a binary snapshot),
// with snapshots and diagnostics along the way when asked. Its options: what to advance, how far,
// and where the final state, the snapshots along the way and the diagnostics go.

#include <string>

#include <CLI/CLI.hpp>

#include "app/commands/command.h"
#include "app/run/run_options.h"
#include "physics/collisions.h"

namespace nbody {
struct SimulateOptions {
  RunOptions run;
  long long steps = 10;
  long long checkEvery = 100;  // steps between checks for non-finite values
  std::string output = "nbody-final.csv";
  long long snapshotEvery = 0;  // 0: no snapshots along the way
  std::string snapshotPath = "nbody-step-{step}.nbody";
  // "ranks": the final state and the snapshots in parts, a GADGET HDF5 file a rank
  // (app/run/snapshot_parts.h); "one": a file each, rank 0's.
  std::string snapshotFiles = "one";
  std::string diagnostics;  // CSV file; empty: none
  long long diagnosticsEvery = 10;
  CollisionSettings collisions;
  bool quiet = false;
};

void addSimulateOptions(CLI::App& command, SimulateOptions& options);
// The final state and the diagnostics; the snapshots' names depend on the input's step, and
// runSimulate checks them once it is read.
CommandFiles simulateFiles(const SimulateOptions& options);
// 0, or 3 where --collisions halt ended the run at a contact (the state there is written).
int runSimulate(const SimulateOptions& options);

}  // namespace nbody
