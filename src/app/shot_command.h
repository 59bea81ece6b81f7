#pragma once
// `nbody shot`: advance a state K steps, draw it into an offscreen framebuffer with the
// point-sprite renderer (no window, no display) and write a PNG.

#include "app/shot_options.h"
#include "engines/engine.h"
#include "io/image.h"

namespace nbody {

int runShot(const ShotOptions& options);

// The picture `nbody shot` writes, made with `engine` in the current OpenGL context. The golden
// image tests call this with the same options. Throws when the state turns non-finite (nothing
// non-finite is drawn) or a stop is asked for.
Image takeShot(Engine& engine, const ShotOptions& options);

}  // namespace nbody
