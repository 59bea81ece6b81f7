#pragma once
// What a picture of a run starts from, as `shot` takes it and `record` films it: the options (what
// to advance, how far, how to draw it, where the picture goes) and the first state uploaded.

#include <string>

#include "app/run/cli_declarations.h"

#include "app/run/render_options.h"
#include "app/run/run_options.h"
#include "engines/engine.h"
#include "render/camera.h"
#include "render/render_settings.h"

namespace nbody {

struct ShotOptions {
  RunOptions run;
  long long steps = 5;  // N = 16384 takes about a second a step on llvmpipe
  int width = 1024, height = 1024;
  RenderOptions render;
  std::string output = "nbody-shot.png";
  bool quiet = false;
};

// What `shot` shares with `record`: --engine, --method, --set, the problem (--scene, --input, ...),
// the step (--dt, ...) and the picture's look (--camera, --colormap, --trails, ...), not its size.
void addDrawingOptions(CLI::App& command, ShotOptions& options);

// The problem uploaded into the engine, and how the run goes on from it: the method and step of the
// command line, or of an input snapshot where the command line gives none.
struct ShotStart {
  const Method& method;
  StepParams step;
  double time;      // the simulation time of the first state
  long long first;  // its step number
  // Each rank draws its own bodies (drawsRanksParts): the ranks' bodies are never gathered, from
  // the upload on (Engine::deferGathering), so no rank makes the whole state on the GPU.
  bool parts;
};
ShotStart uploadShotStart(Engine& engine, const ShotOptions& options);
// One line on stderr: where the camera is, what the colours mean (unless quiet).
// `composited`: each rank draws its own bodies and the pictures are added up (drawsRanksParts).
void reportView(const char* command, bool quiet, std::size_t bodies, const Camera& camera,
                const RenderSettings& settings, bool composited = false);
// What a command that writes no picture after a failure or stop says it left.
inline const std::string kNoPicture = "No picture was written";

}  // namespace nbody
