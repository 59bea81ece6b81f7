#pragma once
// `nbody accuracy`'s options: the engine and problem, which bodies are judged, where the figures go.

#include <string>

#include <CLI/CLI.hpp>

#include "app/run_options.h"
#include "diagnostics/force_accuracy.h"

namespace nbody {

struct AccuracyOptions {
  RunOptions run;
  AccuracySample sample;
  std::string json;  // also write the figures here
  bool quiet = false;
};

CLI::App* addAccuracyCommand(CLI::App& app, AccuracyOptions& options);

}  // namespace nbody
