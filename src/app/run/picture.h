#pragma once
// A picture of a run, as `nbody shot` takes it (the golden-image tests take it the same way).

#include "app/run/shot_options.h"
#include "engines/engine.h"
#include "io/image.h"

namespace nbody {

// The picture `nbody shot` writes, made with `engine` in the current OpenGL context. With trails
// the picture is drawn after every step (DrawnRun), the camera and the colours set from the first
// state, since drawing starts there; without, from the last. Throws when the state turns
// non-finite (nothing non-finite is drawn) or a stop is asked for.
Image takeShot(Engine& engine, const ShotOptions& options);

}  // namespace nbody
