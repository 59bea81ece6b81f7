#include "app/commands/command.h"

#include "app/commands/accuracy_command.h"
#include "app/commands/bench_command.h"
#include "app/commands/compare_command.h"
#include "app/commands/engines_command.h"
#include "app/commands/main_job_command.h"
#include "app/commands/record_command.h"
#include "app/commands/run_command.h"
#include "app/commands/serve_command.h"
#include "app/commands/shot_command.h"
#include "app/commands/simulate_command.h"
#include "app/window/window_app.h"

namespace nbody {

// Commands that advance a state look for a stop request between steps (StopMode::atStepBoundary);
// the others end at the first signal.
const std::vector<CommandRow>& commandTable() {
  using enum StopMode;
  static const std::vector<CommandRow> rows{
      commandRow<WindowOptions>(
          "run", "the interactive window: the simulation live, a panel with its speed and switches",
          atStepBoundary, addWindowOptions, windowFiles, runWindow),
      commandRow<ServeOptions>(
          "serve",
          "the interactive window in any web browser, from a machine without a display: the "
          "picture and panel streamed, steered by one viewer at a time",
          atStepBoundary, addServeOptions, serveFiles, runServe),
      commandRow<SimulateOptions>(
          "simulate",
          "advance a state and write the final state (CSV, a binary snapshot, GADGET or TIPSY)",
          atStepBoundary, addSimulateOptions, simulateFiles, runSimulate),
      commandRow<BenchOptions>("bench", "time engines: steps/s, interactions/s, GFLOPS",
                               atStepBoundary, addBenchOptions, benchFiles, runBench),
      commandRow<EnginesOptions>("engines",
                                 "list the engines, their options (for --set) and choices", atOnce,
                                 addEnginesOptions, enginesFiles, runEngines),
      commandRow<ShotOptions>(
          "shot", "advance a state, draw it offscreen (no display needed) and write a PNG",
          atStepBoundary, addShotOptions, shotFiles, runShot),
      commandRow<RecordOptions>(
          "record",
          "film a run offscreen (no display needed) into an MP4 movie (H.264), as shot draws it",
          atStepBoundary, addRecordOptions, recordFiles, runRecord),
      commandRow<CompareOptions>("compare",
                                 "compare two pictures: prints the largest and the mean pixel "
                                 "delta (the largest difference of a pixel's R, "
                                 "G, B or A values, 0..255) and the fraction of pixels whose delta "
                                 "exceeds --max-delta; exits 0 when they "
                                 "agree within the thresholds, 1 when not (or their sizes differ), "
                                 "2 when a picture cannot be read or --diff cannot be written",
                                 atOnce, addCompareOptions, compareFiles, runCompare),
      commandRow<AccuracyOptions>("accuracy",
                                  "relative force error of an engine against direct summation in "
                                  "double precision, and its speed",
                                  atOnce, addAccuracyOptions, accuracyFiles, runAccuracy),
      commandRow<MainJobOptions>(
          "",
          "nbody-gl: N-body simulation on the GPU by render-to-texture.\n"
          "Without a command: the interactive window (nbody run) where a display exists, "
          "otherwise\nthe benchmark at N = 16384 on the fragment engine (nbody bench).",
          atStepBoundary, addMainJobOptions, mainJobFiles, runMainJob),
  };
  return rows;
}

}  // namespace nbody
