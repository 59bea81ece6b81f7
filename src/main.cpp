// nbody: GPU N-body simulation by render-to-texture. Commands: simulate, bench, engines, shot,
// compare.

#include <cstdio>
#include <cstdlib>
#include <exception>

#include <CLI/CLI.hpp>

#include "app/bench_command.h"
#include "app/compare_command.h"
#include "app/engines_command.h"
#include "app/shot_command.h"
#include "app/simulate_command.h"

int main(int argc, char** argv) {
  CLI::App app{"nbody-gl: N-body simulation on the GPU by render-to-texture.\n"
               "Without a command: the benchmark at N = 16384 on the fragment engine."};
  app.require_subcommand(0, 1);
  nbody::SimulateOptions simulate;
  nbody::BenchOptions bench;
  nbody::ShotOptions shot;
  nbody::CompareOptions compare;
  CLI::App* simulateCommand = nbody::addSimulateCommand(app, simulate);
  CLI::App* benchCommand = nbody::addBenchCommand(app, bench);
  CLI::App* enginesCommand = nbody::addEnginesCommand(app);
  CLI::App* shotCommand = nbody::addShotCommand(app, shot);
  CLI::App* compareCommand = nbody::addCompareCommand(app, compare);
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
    if (compareCommand->parsed()) return nbody::runCompare(compare);
    // The main job. The interactive window is not built yet, so every machine gets the benchmark.
    return nbody::runBench(bench);
  } catch (const nbody::UsageError& e) {
    std::fprintf(stderr, "nbody: error: %s\n", e.what());
    return 2;  // usage error found once an engine was made (an engine option)
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nbody: error: %s\n", e.what());
    return 1;  // runtime failure
  }
}
