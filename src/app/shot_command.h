#pragma once
// `nbody shot`: advance a state K steps, draw it into an offscreen framebuffer with the
// point-sprite renderer (no window, no display) and write a PNG.

#include <string>
#include <vector>

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
// image tests call this with the same options. With trails the picture is drawn after every step
// (DrawnRun), the camera and the colours set from the first state, since drawing starts there;
// without, from the last.
Image takeShot(Engine& engine, const ShotOptions& options);

// What `shot` shares with `record`: --engine, --method, --set, the problem (--scene, --input, ...),
// the step (--dt, ...) and the picture's look (--camera, --colormap, --trails, ...), not its size.
void addDrawingOptions(CLI::App& command, ShotOptions& options);
// The problem uploaded into the engine, and how the run goes on from it: the method and step of the
// command line, or of an input snapshot where the command line gives none.
struct ShotStart {
  const Method& method;
  StepParams step;
  double time;  // the simulation time of the first state
};
ShotStart uploadShotStart(Engine& engine, const ShotOptions& options);
// Advances `steps` steps, however many (Engine::step counts in int).
void advanceSteps(Engine& engine, const Method& method, const StepParams& params, long long steps);
// One line on stderr: where the camera is, what the colours mean (unless quiet).
void reportView(const char* command, bool quiet, std::size_t bodies, const Camera& camera,
                const RenderSettings& settings);

}  // namespace nbody
