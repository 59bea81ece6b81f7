#pragma once
// `nbody run`: the interactive window (app/window/window_app.h runs it). Its options, as the
// window starts with them (app/live/window_options.h): the run, the view, the window's size, and
// what a script asks of it (frames, a screenshot, a recording, the figures).

#include <CLI/CLI.hpp>

#include "app/live/window_options.h"
#include "app/run/output_plan.h"

namespace nbody {

CommandFiles windowFiles(const WindowOptions& options);

}  // namespace nbody
