#pragma once
// `nbody bench`: times the engines and prints steps/s, interactions/s and GFLOPS.

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/command_line.h"
#include "diagnostics/conservation_report.h"

namespace nbody {

struct BenchOptions {
  std::string engine = "fragment";
  std::vector<std::string> methods{"euler"};
  ProblemOptions problem;
  StepParams step;
  long long stepsPerRepetition = 0;  // 0: enough for about targetSeconds per repetition
  int repetitions = 5;
  double targetSeconds = 0.5;
  bool readback = false;
  std::string json;
};

struct BenchResult {
  std::string engine, device, method;
  std::size_t bodies = 0;
  long long stepsPerRepetition = 0;
  int repetitions = 0;
  bool readback = false;
  double stepsPerSecond = 0;      // median over repetitions, wall clock around glFinish
  double gpuMillisecondsPerStep = 0;  // median of GL_TIME_ELAPSED queries; NaN for the CPU
  double interactionsPerSecond = 0;
  double gflops = 0;              // 20 flop per interaction
  std::optional<ConservationCheck> conservation;  // diagnostics before and after the timed steps
};

constexpr double kFlopPerInteraction = 20.0;  // NVIDIA's nbody convention (the paper counts 19)

CLI::App* addBenchCommand(CLI::App& app, BenchOptions& options);
int runBench(const BenchOptions& options);
// Times one method on an engine that already holds the initial state.
BenchResult benchmark(Engine& engine, const Method& method, const BenchOptions& options);

}  // namespace nbody
