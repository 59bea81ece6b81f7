#pragma once
// `nbody bench`: times the engines and prints steps/s, interactions/s and GFLOPS. Its options:
// which engines, methods and read-backs to time, how long, and where the results go.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/run/output_plan.h"
#include "app/run/run_options.h"
#include "app/run/timing.h"
#include "physics/collisions.h"

namespace nbody {

struct BenchOptions {
  RunOptions run;  // --engine and --method: lists; --engine all
  std::vector<Readback> readbacks{Readback::none};
  bool sweep = false;  // every combination of every engine option
  TimingPlan timing;
  std::string json, csv;
  CollisionSettings collisions;  // timed as simulate steps with them (readback none)
};

void addBenchOptions(CLI::App& command, BenchOptions& options);
CommandFiles benchFiles(const BenchOptions& options);
int runBench(const BenchOptions& options);

}  // namespace nbody
