#pragma once
// `nbody bench`: times the engines and prints steps/s, interactions/s and GFLOPS.

#include <optional>
#include <string>
#include <vector>

#include "app/bench_options.h"
#include "diagnostics/conservation_report.h"
#include "diagnostics/force_accuracy.h"

namespace nbody {

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

int runBench(const BenchOptions& options);
// Times one method on an engine that already holds the initial state. Returns early, with the
// repetitions done so far, when a stop is asked for (app/stop_signals.h).
BenchResult benchmark(Engine& engine, const Method& method, Readback readback, const BenchOptions& options);

}  // namespace nbody
