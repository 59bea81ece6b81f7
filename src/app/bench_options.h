#pragma once
// `nbody bench`'s options: which engines, methods and read-backs to time, how long, and where the
// results go.

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/output_plan.h"
#include "app/run_options.h"

namespace nbody {

// How the state is read back to the CPU during timing (the paper's table 5).
enum class Readback { none, sync, async };
std::string_view readbackName(Readback readback);

struct BenchOptions {
  RunOptions run;                      // --engine and --method: lists; --engine all
  std::vector<Readback> readbacks{Readback::none};
  bool sweep = false;                  // every combination of every engine option
  long long stepsPerRepetition = 0;    // 0: enough for about targetSeconds per repetition
  int repetitions = 5;
  double targetSeconds = 0.5;
  std::string json, csv;
};

// The longest --seconds a repetition may be asked to run.
inline constexpr double kLongestRepetitionSeconds = 3600.0;
// The most steps one repetition takes (--steps, or what --seconds asks for).
inline constexpr long long kLargestRepetitionSteps = 1LL << 30;

CLI::App* addBenchCommand(CLI::App& app, BenchOptions& options);

// The files bench writes, with their options.
std::vector<NamedFile> benchOutputs(const BenchOptions& options);

}  // namespace nbody
