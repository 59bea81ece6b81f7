#pragma once
// `nbody bench`: times the engines and prints steps/s, interactions/s and GFLOPS.

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/command_line.h"
#include "diagnostics/conservation_report.h"

namespace nbody {

enum class Readback { none, sync, async };

struct BenchOptions {
  std::vector<std::string> engines{"fragment"};  // or "all"
  std::vector<std::string> methods{"euler"};
  std::vector<std::string> readbacks{"none"};
  std::vector<std::string> settings;  // NAME=VALUE engine options
  bool sweep = false;                 // every combination of every engine option
  ProblemOptions problem;
  StepParams step;
  long long stepsPerRepetition = 0;   // 0: enough for about targetSeconds per repetition
  int repetitions = 5;
  double targetSeconds = 0.5;
  std::string json, csv;
};

struct BenchResult {
  std::string engine, device, variant, method, readback;
  std::size_t bodies = 0;
  long long stepsPerRepetition = 0;
  int repetitions = 0;
  double stepsPerSecond = 0;          // median over repetitions, wall clock around glFinish
  double gpuMillisecondsPerStep = 0;  // median of GL_TIME_ELAPSED queries; NaN for the CPU
  double interactionsPerSecond = 0;
  double gflops = 0;                  // 20 flop per interaction
  std::optional<ConservationCheck> conservation;  // diagnostics before and after the timed steps
};

constexpr double kFlopPerInteraction = 20.0;  // NVIDIA's nbody convention (the paper counts 19)

CLI::App* addBenchCommand(CLI::App& app, BenchOptions& options);
int runBench(const BenchOptions& options);
// Times one method on an engine that already holds the initial state.
BenchResult benchmark(Engine& engine, const Method& method, Readback readback, const BenchOptions& options);

}  // namespace nbody
