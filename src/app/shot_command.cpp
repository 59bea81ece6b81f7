#include "app/shot_command.h"

#include <algorithm>
#include <cstdio>

#include "app/engine_session.h"
#include "io/atomic_file.h"
#include "io/png.h"
#include "render/offscreen.h"
#include "render/point_sprite_renderer.h"
#include "render/state_textures.h"

namespace nbody {
namespace {

void advance(Engine& engine, const Method& method, const StepParams& params, long long steps) {
  constexpr long long kStepsPerCall = 1 << 20;  // step() counts in int
  for (long long done = 0; done < steps; done += kStepsPerCall)
    engine.step(method, params, int(std::min(kStepsPerCall, steps - done)));
}

void report(bool quiet, std::size_t bodies, const Camera& camera, const RenderSettings& settings) {
  if (quiet) return;
  std::fprintf(stderr,
               "shot: N = %zu; camera yaw %g, pitch %g, distance %g, target (%g, %g, %g); colour by "
               "%s from %g to %g\n",
               bodies, camera.yawDegrees, camera.pitchDegrees, camera.distance, camera.target.x,
               camera.target.y, camera.target.z, std::string(colorByName(settings.colorBy)).c_str(),
               settings.colorRange.x, settings.colorRange.y);
}

}  // namespace

CLI::App* addShotCommand(CLI::App& app, ShotOptions& options) {
  CLI::App* command = app.add_subcommand(
      "shot", "advance a state, draw it offscreen (no display needed) and write a PNG");
  addRunOptions(*command, options.run, {.inputOption = "--input"});
  command->add_option("--steps", options.steps, "number of steps K before the picture")
      ->check(CLI::Range(0LL, 1LL << 40))
      ->capture_default_str();
  command->add_option("--width", options.width, "picture width in pixels")
      ->check(CLI::Range(1, 16384))
      ->capture_default_str();
  command->add_option("--height", options.height, "picture height in pixels")
      ->check(CLI::Range(1, 16384))
      ->capture_default_str();
  addRenderOptions(*command, options.render);
  command->add_option("--out,-o", options.output, "PNG file to write")->capture_default_str();
  command->add_flag("--quiet,-q", options.quiet, "print nothing but errors");
  return command;
}

// Uploads the problem and advances it `options.steps` steps; a snapshot goes on with its own
// method, dt, softening and G unless the command line says otherwise.
State advanceToShot(Engine& engine, const ShotOptions& options) {
  const Snapshot start = makeInitialSnapshotFor(engine, options.run);
  const RunSettings run = resolveRunSettings(options.run, start);
  const Method& method = methodOf(run, options.run.input.empty() ? "the scene" : options.run.input);
  if (!options.quiet)
    std::fprintf(stderr, "shot: %s, %lld steps of dt = %g\n", method.name.c_str(), options.steps, run.step.dt);
  engine.upload(start.state);
  advance(engine, method, run.step, options.steps);
  // The camera and the colour range come from the state on the CPU: one download per picture.
  return engine.download();
}

Image takeShot(Engine& engine, const ShotOptions& options) {
  const CameraSpec cameraSpec = parseCameraSpec(options.render.camera);
  const State final = advanceToShot(engine, options);
  const RenderSettings settings = resolveRenderSettings(options.render, final);
  const glm::ivec2 size(options.width, options.height);
  const Camera camera = placeCamera(cameraSpec, boundingSphere(final), float(size.x) / float(size.y));
  report(options.quiet, final.size(), camera, settings);

  UploadedStateTextures uploaded;
  const GpuStateView bodies = gpuStateOf(engine, uploaded);
  PointSpriteRenderer renderer;
  return renderOffscreen(size, [&] { renderer.draw(bodies, camera, settings); });
}

int runShot(const ShotOptions& options) {
  { AtomicFileWriter probe(options.output); }  // an unwritable path fails before the work
  EngineSession session = openEngine(options.run.choice.engine, options.run.choice.engineSettings, nullptr, true);
  if (!options.quiet)
    std::fprintf(stderr, "shot: %s engine (%s) on %s, drawn by renderer %s\n", session.engine->name().c_str(),
                 session.engine->variant().c_str(), session.engine->device().c_str(),
                 session.context->info().renderer.c_str());
  const Image image = takeShot(*session.engine, options);
  writePng(image, options.output);
  if (!options.quiet)
    std::fprintf(stderr, "shot: wrote %s (%d x %d)\n", options.output.c_str(), image.width, image.height);
  return 0;
}

}  // namespace nbody
