#pragma once
// `nbody accuracy`: how close an engine's forces come to direct summation in double precision on a
// problem (a scene or a file), and how long one of its force evaluations takes: the percentiles of
// the relative force error, the relative error of its own potential (a tree's), the time per step.
// Its options: the engine and problem, which bodies are judged, where the figures go.

#include <string>

#include <CLI/CLI.hpp>

#include "app/run/output_plan.h"
#include "app/run/run_options.h"
#include "diagnostics/force_accuracy.h"

namespace nbody {

struct AccuracyOptions {
  RunOptions run;
  AccuracySample sample;
  std::string json;  // also write the figures here
  bool quiet = false;
};

void addAccuracyOptions(CLI::App& command, AccuracyOptions& options);
CommandFiles accuracyFiles(const AccuracyOptions& options);
int runAccuracy(const AccuracyOptions& options);

}  // namespace nbody
