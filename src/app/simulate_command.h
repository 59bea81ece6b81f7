#pragma once
// `nbody simulate`: advance a state K steps and write the final state as CSV.

#include <CLI/CLI.hpp>

#include "app/command_line.h"

namespace nbody {

struct SimulateOptions {
  std::string engine = "fragment";
  std::vector<std::string> settings;  // engine options NAME=VALUE
  std::string method = "euler";
  ProblemOptions problem;
  StepParams step;
  long long steps = 10;
  long long checkEvery = 100;  // steps between checks for non-finite values
  std::string output = "nbody-final.csv";
  bool quiet = false;
};

CLI::App* addSimulateCommand(CLI::App& app, SimulateOptions& options);
int runSimulate(const SimulateOptions& options);

}  // namespace nbody
