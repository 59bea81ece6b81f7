// nbody: GPU N-body simulation by render-to-texture. Commands: run (the interactive window),
// simulate, bench, engines, shot, record, compare, accuracy.

#include <cstdio>
#include <cstdlib>
#include <exception>

#include <CLI/CLI.hpp>

#include "app/accuracy_command.h"
#include "app/bench_command.h"
#include "app/compare_command.h"
#include "app/engines_command.h"
#include "app/record_command.h"
#include "app/shot_command.h"
#include "app/simulate_command.h"
#include "app/window_app.h"
#include "gl/window_context.h"

int main(int argc, char** argv) {
  CLI::App app{"nbody-gl: N-body simulation on the GPU by render-to-texture.\n"
               "Without a command: the interactive window (nbody run) where a display exists, otherwise\n"
               "the benchmark at N = 16384 on the fragment engine (nbody bench)."};
  app.require_subcommand(0, 1);
  nbody::SimulateOptions simulate;
  nbody::BenchOptions bench;
  nbody::ShotOptions shot;
  nbody::RecordOptions record;
  nbody::CompareOptions compare;
  nbody::AccuracyOptions accuracy;
  nbody::WindowOptions window;
  CLI::App* runCommand = nbody::addRunCommand(app, window);
  CLI::App* simulateCommand = nbody::addSimulateCommand(app, simulate);
  CLI::App* benchCommand = nbody::addBenchCommand(app, bench);
  CLI::App* enginesCommand = nbody::addEnginesCommand(app);
  CLI::App* shotCommand = nbody::addShotCommand(app, shot);
  CLI::App* recordCommand = nbody::addRecordCommand(app, record);
  CLI::App* compareCommand = nbody::addCompareCommand(app, compare);
  CLI::App* accuracyCommand = nbody::addAccuracyCommand(app, accuracy);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "nbody: error: %s (see --help)\n", e.what());
    return 2;  // usage error
  }
  try {
    if (simulateCommand->parsed()) return nbody::runSimulate(simulate);
    if (benchCommand->parsed()) return nbody::runBench(bench);
    if (enginesCommand->parsed()) return nbody::runEngines();
    if (shotCommand->parsed()) return nbody::runShot(shot);
    if (recordCommand->parsed()) return nbody::runRecord(record);
    if (compareCommand->parsed()) return nbody::runCompare(compare);
    if (accuracyCommand->parsed()) return nbody::runAccuracy(accuracy);
    if (runCommand->parsed()) return nbody::runWindow(window);
    // The main job: the window where there is a display, the headless benchmark elsewhere.
    std::string why;
    if (nbody::gl::displayNamed(&why)) {
      try {
        return nbody::runWindow(window);
      } catch (const nbody::gl::WindowUnavailable& e) {
        why = e.what();
      }
    }
    std::fprintf(stderr, "nbody: no window (%s); running the headless benchmark instead\n", why.c_str());
    return nbody::runBench(bench);
  } catch (const nbody::UsageError& e) {
    std::fprintf(stderr, "nbody: error: %s\n", e.what());
    return 2;  // usage error found once an engine was made (an engine option)
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nbody: error: %s\n", e.what());
    return 1;  // runtime failure
  }
}
