#pragma once
// `nbody run` (and `nbody` with no command where a display exists): the interactive window.

#include <string>

#include <CLI/CLI.hpp>

#include "app/render_options.h"
#include "app/run_options.h"

namespace nbody {

struct WindowOptions {
  RunOptions run;                      // --load is its file to start from
  std::string stepsPerFrame = "auto";  // or a number
  RenderOptions render;
  int width = 1280, height = 800;
  bool noVsync = false;
  bool hidePanel = false;
  long long frames = 0;     // quit after this many frames; 0: run until closed
  std::string screenshot;   // write the last frame here
  bool printStats = false;  // print the panel's final figures to stdout
};

CLI::App* addRunCommand(CLI::App& app, WindowOptions& options);
// Throws gl::WindowUnavailable when no window opens (main turns it into one line and exit 1, or
// falls back to the benchmark when the user named no command).
int runWindow(const WindowOptions& options);

}  // namespace nbody
