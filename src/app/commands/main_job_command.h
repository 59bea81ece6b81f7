#pragma once
// nbody with no command, its main job: the interactive window with its defaults where a display
// exists (and a window opens), else the headless benchmark with its defaults, after one line saying
// why there is no window. It takes no options of its own.

#include <CLI/CLI.hpp>

#include "app/commands/bench_command.h"
#include "app/live/window_options.h"
#include "app/run/output_plan.h"

namespace nbody {

struct MainJobOptions {
  WindowOptions window;
  BenchOptions bench;
};

inline void addMainJobOptions(CLI::App&, MainJobOptions&) {}
CommandFiles mainJobFiles(const MainJobOptions& options);
int runMainJob(const MainJobOptions& options);

}  // namespace nbody
