#include "app/shot_command.h"

#include <algorithm>
#include <cstdio>

#include "app/drawn_run.h"
#include "app/engine_session.h"
#include "app/stepping.h"
#include "app/stop_signals.h"
#include "io/output_file.h"
#include "io/png.h"
#include "render/offscreen.h"
#include "render/point_sprite_renderer.h"
#include "render/state_textures.h"
#include "util/checked_arithmetic.h"

namespace nbody {
namespace {

const std::string kNoPicture = "No picture was written";
constexpr long long kStepsBetweenChecks = 100;  // as simulate's default --check-every

std::string sourceOf(const ShotOptions& options) { return options.run.input.empty() ? "the scene" : options.run.input; }

// Advances `options.steps` steps from what uploadShotStart uploaded, in chunks that see a stop
// request and a state turning non-finite. Returns the final state, checked finite.
State advanceToShot(Engine& engine, const ShotOptions& options) {
  const ShotStart start = uploadShotStart(engine, options);
  const long long last =
      addOrThrow(start.first, options.steps, sourceOf(options) + ": step " + std::to_string(start.first) + " plus --steps");
  if (!options.quiet)
    std::fprintf(stderr, "shot: %s, %lld steps of dt = %g\n", start.method.name.c_str(), options.steps, start.step.dt);
  ChunkedStepper stepper(engine, start.method, start.step);
  FiniteWatch watch(start.first);
  const auto timeAt = [&](long long step) { return start.time + double(step - start.first) * start.step.dt; };
  for (long long step = start.first; step < last;) {
    const long long target = std::min(last, nextMultipleAfter(step, kStepsBetweenChecks).value_or(last));
    if (!stepper.advance(step, target))
      throw Stopped(stopRequested(), "at step " + std::to_string(step) + " of " + std::to_string(last) + ". " + kNoPicture);
    watch.check(engine, step, timeAt(step), [] { return kNoPicture; });
  }
  // The camera and the colour range come from the state on the CPU: one download per picture.
  return engine.download();
}

// Drawn after every step, so that every step's light goes into the trails; the state is checked
// finite before the last picture.
Image takeShotWithTrails(Engine& engine, const ShotOptions& options) {
  DrawnRun run(engine, options);
  reportView("shot", options.quiet, run.firstState().size(), run.camera(), run.settings());
  run.draw();  // the first state's light starts the trails
  run.advance(options.steps);
  throwIfStopped([] { return "after the steps. " + kNoPicture; });
  FiniteWatch(0).check(engine, options.steps, run.time(), [] { return kNoPicture; });
  run.draw();
  return run.read();
}

}  // namespace

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

ShotStart uploadShotStart(Engine& engine, const ShotOptions& options) {
  const Snapshot start = makeInitialSnapshotFor(engine, options.run);
  const RunSettings run = resolveRunSettings(options.run, start);
  const Method& method = methodOf(run, sourceOf(options));
  engine.upload(start.state);
  return {method, run.step, start.time, start.step};
}

Image takeShot(Engine& engine, const ShotOptions& options) {
  if (options.render.settings.trailHalfLife > 0.0f) return takeShotWithTrails(engine, options);
  const CameraSpec cameraSpec = parseCameraSpec(options.render.camera);
  const State final = advanceToShot(engine, options);
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
  OutputFile output(options.output);  // an unwritable path fails before the work
  EngineSession session = openEngine(options.run.choice.engine, options.run.choice.engineSettings, nullptr, true);
  if (!options.quiet)
    std::fprintf(stderr, "shot: %s engine (%s) on %s, drawn by renderer %s\n", session.engine->name().c_str(),
                 session.engine->variant().c_str(), session.engine->device().c_str(),
                 session.context->info().renderer.c_str());
  const Image image = takeShot(*session.engine, options);
  throwIfStopped([] { return "after drawing. " + kNoPicture; });
  writePng(image, output);
  output.commit();
  if (!options.quiet)
    std::fprintf(stderr, "shot: wrote %s (%d x %d)\n", options.output.c_str(), image.width, image.height);
  return 0;
}

}  // namespace nbody
