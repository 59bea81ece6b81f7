#pragma once
// `nbody shot`: advance a state K steps, draw it into an offscreen framebuffer with the
// point-sprite renderer (no window, no display) and write a PNG.

#include <string>

#include <CLI/CLI.hpp>

#include "app/run_options.h"
#include "app/render_options.h"
#include "io/image.h"

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
int runShot(const ShotOptions& options);

// The picture `nbody shot` writes, made with `engine` in the current OpenGL context. The golden
// image tests call this with the same options.
Image takeShot(Engine& engine, const ShotOptions& options);

}  // namespace nbody
