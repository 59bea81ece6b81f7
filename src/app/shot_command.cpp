#include "app/shot_command.h"

#include <algorithm>
#include <cstdio>

#include "app/drawn_run.h"
#include "app/engine_session.h"
#include "io/atomic_file.h"
#include "io/png.h"
#include "render/offscreen.h"
#include "render/point_sprite_renderer.h"
#include "render/state_textures.h"

namespace nbody {

void advanceSteps(Engine& engine, const Method& method, const StepParams& params, long long steps) {
  constexpr long long kStepsPerCall = 1 << 20;  // step() counts in int
  for (long long done = 0; done < steps; done += kStepsPerCall)
    engine.step(method, params, int(std::min(kStepsPerCall, steps - done)));
}

void reportView(const char* command, bool quiet, std::size_t bodies, const Camera& camera,
                const RenderSettings& settings) {
  if (quiet) return;
  std::fprintf(stderr,
               "%s: N = %zu; camera yaw %g, pitch %g, distance %g, target (%g, %g, %g); colour by "
               "%s from %g to %g\n",
               command, bodies, camera.yawDegrees, camera.pitchDegrees, camera.distance, camera.target.x,
               camera.target.y, camera.target.z, std::string(colorByName(settings.colorBy)).c_str(),
               settings.colorRange.x, settings.colorRange.y);
}

void addDrawingOptions(CLI::App& command, ShotOptions& options) {
  addRunOptions(command, options.run, {.inputOption = "--input"});
  addRenderOptions(command, options.render);
}

CLI::App* addShotCommand(CLI::App& app, ShotOptions& options) {
  CLI::App* command = app.add_subcommand(
      "shot", "advance a state, draw it offscreen (no display needed) and write a PNG");
  addDrawingOptions(*command, options);
  command->add_option("--steps", options.steps, "number of steps K before the picture")
      ->check(CLI::Range(0LL, 1LL << 40))
      ->capture_default_str();
  command->add_option("--width", options.width, "picture width in pixels")
      ->check(CLI::Range(1, 16384))
      ->capture_default_str();
  command->add_option("--height", options.height, "picture height in pixels")
      ->check(CLI::Range(1, 16384))
      ->capture_default_str();
  command->add_option("--out,-o", options.output, "PNG file to write")->capture_default_str();
  command->add_flag("--quiet,-q", options.quiet, "print nothing but errors");
  return command;
}

// Uploads the problem; a snapshot goes on with its own method, dt, softening and G unless the
// command line says otherwise.
ShotStart uploadShotStart(Engine& engine, const ShotOptions& options) {
  const Snapshot start = makeInitialSnapshotFor(engine, options.run);
  const RunSettings run = resolveRunSettings(options.run, start);
  const Method& method = methodOf(run, options.run.input.empty() ? "the scene" : options.run.input);
  engine.upload(start.state);
  return {method, run.step, start.time};
}

namespace {

Image takeShotWithTrails(Engine& engine, const ShotOptions& options) {
  DrawnRun run(engine, options);
  reportView("shot", options.quiet, run.firstState().size(), run.camera(), run.settings());
  run.draw();  // the first state's light starts the trails
  run.advance(options.steps);
  run.draw();
  return run.read();
}

}  // namespace

Image takeShot(Engine& engine, const ShotOptions& options) {
  if (options.render.settings.trailHalfLife > 0.0f) return takeShotWithTrails(engine, options);
  const CameraSpec cameraSpec = parseCameraSpec(options.render.camera);
  const ShotStart start = uploadShotStart(engine, options);
  if (!options.quiet)
    std::fprintf(stderr, "shot: %s, %lld steps of dt = %g\n", start.method.name.c_str(), options.steps, start.step.dt);
  advanceSteps(engine, start.method, start.step, options.steps);
  // The camera and the colour range come from the state on the CPU: one download per picture.
  const State final = engine.download();
  const RenderSettings settings = resolveRenderSettings(options.render, final);
  const glm::ivec2 size(options.width, options.height);
  const Camera camera = placeCamera(cameraSpec, boundingSphere(final), float(size.x) / float(size.y));
  reportView("shot", options.quiet, final.size(), camera, settings);

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
