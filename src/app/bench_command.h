#pragma once
// `nbody bench`: times the engines and prints steps/s, interactions/s and GFLOPS.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/run_options.h"
#include "diagnostics/conservation_report.h"
#include "diagnostics/force_accuracy.h"

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

struct BenchResult {
  std::string engine, device, variant, method;
  Readback readback = Readback::none;
  std::size_t bodies = 0;
  long long stepsPerRepetition = 0;
  int repetitions = 0;
  double stepsPerSecond = 0;          // median over repetitions, wall clock around glFinish
  double gpuMillisecondsPerStep = 0;  // median of GL_TIME_ELAPSED queries; NaN for the CPU
  double interactionsPerSecond = 0;
  double gflops = 0;                  // kFlopPerInteraction per interaction
  std::optional<ConservationCheck> conservation;  // diagnostics before and after the timed steps
  std::optional<AccuracyReport> accuracy;         // an approximate engine's force error on the initial state
};

CLI::App* addBenchCommand(CLI::App& app, BenchOptions& options);
int runBench(const BenchOptions& options);
// Times one method on an engine that already holds the initial state.
BenchResult benchmark(Engine& engine, const Method& method, Readback readback, const BenchOptions& options);

}  // namespace nbody
