#pragma once
// `nbody serve`: the interactive window's session in any web browser, from a machine without a
// display (app/window/served_front_end.h). Its options are `nbody run`'s, plus where to listen and
// who may connect.

#include <CLI/CLI.hpp>

#include "app/live/window_options.h"
#include "app/run/output_plan.h"
#include "app/window/served_front_end.h"

namespace nbody {

struct ServeOptions {
  WindowOptions window;
  ServeSettings serve;
};

void addServeOptions(CLI::App& command, ServeOptions& options);
CommandFiles serveFiles(const ServeOptions& options);
int runServe(const ServeOptions& options);

}  // namespace nbody
