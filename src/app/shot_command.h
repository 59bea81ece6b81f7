#pragma once
// `nbody shot`: advance a state K steps, draw it into an offscreen framebuffer with the
// point-sprite renderer (no window, no display) and write a PNG.

#include "app/shot_options.h"
#include "engines/engine.h"
#include "io/image.h"
#include "render/camera.h"
#include "render/render_settings.h"

namespace nbody {

int runShot(const ShotOptions& options);

// The picture `nbody shot` writes, made with `engine` in the current OpenGL context. The golden
// image tests call this with the same options. With trails the picture is drawn after every step
// (DrawnRun), the camera and the colours set from the first state, since drawing starts there;
// without, from the last. Throws when the state turns non-finite (nothing non-finite is drawn) or
// a stop is asked for.
Image takeShot(Engine& engine, const ShotOptions& options);

// The problem uploaded into the engine, and how the run goes on from it: the method and step of the
// command line, or of an input snapshot where the command line gives none.
struct ShotStart {
  const Method& method;
  StepParams step;
  double time;      // the simulation time of the first state
  long long first;  // its step number
};
ShotStart uploadShotStart(Engine& engine, const ShotOptions& options);
// Advances `steps` steps, however many (Engine::step counts in int).
void advanceSteps(Engine& engine, const Method& method, const StepParams& params, long long steps);
// One line on stderr: where the camera is, what the colours mean (unless quiet).
void reportView(const char* command, bool quiet, std::size_t bodies, const Camera& camera,
                const RenderSettings& settings);

}  // namespace nbody
