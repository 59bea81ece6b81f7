#pragma once
// `nbody run` (and `nbody` with no command where a display exists): the interactive window.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/command_line.h"
#include "app/render_options.h"

namespace nbody {

struct WindowOptions {
  std::string engine = "fragment";  // the paper's method
  std::string method = "euler";
  std::vector<std::string> settings;  // NAME=VALUE engine options
  ProblemOptions problem;
  StepParams step;
  std::string stepsPerFrame = "auto";  // or a number
  RenderOptions render;
  int width = 1280, height = 800;
  bool noVsync = false;
  bool hidePanel = false;
  long long frames = 0;     // quit after this many frames; 0: run until closed
  std::string screenshot;   // write the last frame here
  std::string record;       // film the window into this MP4 from the first frame; empty: not
  bool printStats = false;  // print the panel's final figures to stdout
  std::string load;         // start from this snapshot; empty: from the scene
  GivenSettings given;      // what the command line says instead of the snapshot
};

CLI::App* addRunCommand(CLI::App& app, WindowOptions& options);
// Throws gl::WindowUnavailable when no window opens (main turns it into one line and exit 1, or
// falls back to the benchmark when the user named no command).
int runWindow(const WindowOptions& options);

}  // namespace nbody
