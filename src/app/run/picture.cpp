#include "app/run/picture.h"

#include <algorithm>
#include <cstdio>

#include "app/run/drawn_run.h"
#include "app/run/stepping.h"
#include "app/run/stop_signals.h"
#include "parallel/ranks.h"
#include "render/body_field.h"
#include "render/offscreen.h"
#include "render/overlay_painter.h"
#include "render/point_sprite_renderer.h"
#include "render/selection.h"
#include "render/state_textures.h"
#include "util/checked_arithmetic.h"

namespace nbody {

namespace {

constexpr long long kStepsBetweenChecks = 100;  // as simulate's default --check-every

// The state a shot shows, checked finite, when it is (for the clock), and its constants (for the
// colours by energy). `state` is this rank's part where the ranks' parts are drawn (`parts`).
struct ShotEnd {
  State state;
  OverlayFacts facts;
  StepParams step;
  bool parts = false;
};

// Advances `options.steps` steps from what uploadShotStart uploaded, in chunks that see a stop
// request and a state turning non-finite.
ShotEnd advanceToShot(Engine& engine, const ShotOptions& options) {
  ShotStart start = uploadShotStart(engine, options);
  const long long last = addOrThrow(
      start.first, options.steps,
      problemSource(options.run) + ": step " + std::to_string(start.first) + " plus --steps");
  if (!options.quiet)
    std::fprintf(stderr, "shot: %s, %lld steps of dt = %g\n", start.method.name.c_str(),
                 options.steps, start.step.dt);
  ChunkedStepper stepper(engine, start.method, start.step);
  FiniteWatch watch(start.first);
  const auto timeAt = [&](long long step) {
    return start.time + double(step - start.first) * start.step.dt;
  };
  for (long long step = start.first; step < last;) {
    const long long target =
        std::min(last, nextMultipleAfter(step, kStepsBetweenChecks).value_or(last));
    if (!stepper.advance(step, target))
      throw Stopped(stopRequested(), "at step " + std::to_string(step) + " of " +
                                         std::to_string(last) + ". " + kNoPicture);
    watch.check(engine, step, timeAt(step), [] { return kNoPicture; });
  }
  // The camera and the colour range come from the state on the CPU: one download per picture (of
  // this rank's part, where the parts are drawn).
  ShotEnd end;
  end.parts = start.parts;
  end.state = start.parts ? engine.downloadPart().rows : engine.download();
  end.facts.time = timeAt(last);
  end.facts.step = last;
  end.step = start.step;
  return end;
}

// Drawn after every step, so that every step's light goes into the trails; the state is checked
// finite every 100 steps and before the last picture.
Image takeShotWithTrails(Engine& engine, const ShotOptions& options) {
  DrawnRun run(engine, options, kNoPicture);
  reportView("shot", options.quiet, run.bodyCount(), run.camera(), run.settings(),
             run.composited());
  run.draw();  // the first state's light starts the trails
  const long long first = run.stepNumber();
  if (!run.advance(options.steps))
    throw Stopped(stopRequested(), "at step " + std::to_string(run.stepNumber()) + " of " +
                                       std::to_string(first) + " to " +
                                       std::to_string(first + options.steps) + ". " + kNoPicture);
  run.checkFinite();
  run.draw();
  return run.read();
}

}  // namespace

Image takeShot(Engine& engine, const ShotOptions& options) {
  if (options.render.settings.trailHalfLife > 0.0f) return takeShotWithTrails(engine, options);
  const CameraSpec cameraSpec = parseCameraSpec(options.render.camera);
  ShotEnd end = advanceToShot(engine, options);
  const State& final = end.state;
  // A distributed run's picture is rank 0's; where the ranks' parts are drawn, every rank draws.
  const bool drawing = ranks().leader() || end.parts;
  const Ranks& holders = end.parts ? ranks() : processAlone();  // of the bodies `final` holds
  UploadedStateTextures uploaded;  // the CPU engine's state, uploaded once
  const GpuStateView onGpu = !drawing    ? GpuStateView{}
                             : end.parts ? ownBodiesOf(engine)
                                         : gpuStateOf(engine, uploaded);
  BodyField field;  // --color-by energy or density
  if (drawing && !options.render.settings.density)
    field.measure(onGpu, options.render.settings.colorBy, end.step);
  RenderSettings settings = resolveRenderSettings(options.render, final, 0.0, field.values(),
                                                  holders);  // drawn at time 0
  const glm::ivec2 size(options.width, options.height);
  const Camera camera =
      placeCamera(cameraSpec, boundingSphere(final, holders), float(size.x) / float(size.y));
  reportView("shot", options.quiet, engine.bodyCount(), camera, settings, end.parts);

  if (!drawing) return Image(size.x, size.y);
  const GpuStateView bodies = settings.density ? onGpu : field.attachedTo(onGpu);
  PointSpriteRenderer renderer;
  renderer.compositeAcross(end.parts ? &ranks() : nullptr);
  OverlayPainter overlays;
  const std::vector<TreeCell> cells = settings.shows(Overlay::Cells)
                                          ? treeCellsOf(final, settings.cellDepth)
                                          : std::vector<TreeCell>{};
  end.facts.cells = &cells;
  Selection picked;  // --select: ringed where they are (shot --trails draws their orbits too)
  pickSelected(picked, options.render, final, "shot", options.quiet);
  end.facts.marked = picked.marked();
  return renderOffscreen(size, [&] {
    if (fitsDensityToPicture(options.render))
      settings.colorRange = renderer.fitDensityRange(bodies, camera, settings);
    renderer.draw(bodies, camera, settings);
    overlays.paint(camera, settings, end.facts);
  });
}

}  // namespace nbody
