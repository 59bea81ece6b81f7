#pragma once
// `nbody shot`: advance a state K steps, draw it into an offscreen framebuffer with the
// point-sprite renderer (no window, no display) and write a PNG. Its options are a picture's
// (app/run/picture.h): what to advance, how far, how to draw it and where the picture goes.

#include <CLI/CLI.hpp>

#include "app/run/output_plan.h"
#include "app/run/picture.h"

namespace nbody {

void addShotOptions(CLI::App& command, ShotOptions& options);
CommandFiles shotFiles(const ShotOptions& options);
int runShot(const ShotOptions& options);

}  // namespace nbody
