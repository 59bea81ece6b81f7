#pragma once
// `nbody shot`'s options: what to advance, how far, how to draw it and where the picture goes.

#include <string>

#include <CLI/CLI.hpp>

#include "app/render_options.h"
#include "app/run_options.h"

namespace nbody {

struct ShotOptions {
  RunOptions run;
  long long steps = 5;  // N = 16384 takes about a second a step on llvmpipe
  int width = 1024, height = 1024;
  RenderOptions render;
  std::string output = "nbody-shot.png";
  bool quiet = false;
};

CLI::App* addShotCommand(CLI::App& app, ShotOptions& options);
// What `shot` shares with `record`: --engine, --method, --set, the problem (--scene, --input, ...),
// the step (--dt, ...) and the picture's look (--camera, --colormap, --trails, ...), not its size.
void addDrawingOptions(CLI::App& command, ShotOptions& options);

}  // namespace nbody
