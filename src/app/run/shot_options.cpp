#include "app/run/shot_options.h"

#include <cstdio>
#include <limits>

#include <CLI/CLI.hpp>

#include "app/run/snapshot_share.h"

namespace nbody {

void addDrawingOptions(CLI::App& command, ShotOptions& options) {
  addRunOptions(command, options.run, {.inputOption = "--input"});
  addRenderOptions(command, options.render);
}

// The scene, or the input: a scene made a part a rank, a part snapshot read a share a rank, where
// the ranks may draw their own bodies (the decomposed tree, at any size: app/run/snapshot_share.h).
RunStart readShotStart(const Engine& engine, const ShotOptions& options) {
  if (options.run.input.empty())
    return sceneRunStart(
        engine, options.run,
        drawsRanksParts(engine, options.render, options.run.choice.scene.bodyCount()));
  const bool shares =
      ranks().distributed() &&
      drawsRanksParts(engine, options.render, std::numeric_limits<std::size_t>::max());
  RunStart start = readRunStart(options.run.input, shares, false);  // pictures need no radii
  engine.checkCapacity(start.bodies);
  return start;
}

ShotStart uploadShotStart(Engine& engine, const ShotOptions& options) {
  RunStart start = readShotStart(engine, options);
  const RunSettings run = resolveRunSettings(options.run, start.snapshot, start.holders());
  const Method& method = methodOf(run, problemSource(options.run));
  const bool parts = drawsRanksParts(engine, options.render, start.bodies);
  wholeUnlessHeld(start, parts, options.run);
  engine.deferGathering(parts);
  uploadRunStart(start, engine);
  return {method, run.step, start.snapshot.time, start.snapshot.step, parts};
}

void reportView(const char* command, bool quiet, std::size_t bodies, const Camera& camera,
                const RenderSettings& settings, bool composited) {
  if (quiet) return;
  char colours[160];
  if (settings.density)
    std::snprintf(colours, sizeof colours, "projected density, smoothing %g",
                  double(settings.shownSmoothing()));
  else
    std::snprintf(colours, sizeof colours, "colour by %s from %g to %g",
                  std::string(colorByName(settings.colorBy)).c_str(), double(settings.colorRange.x),
                  double(settings.colorRange.y));
  std::fprintf(stderr,
               "%s: N = %zu; camera yaw %g, pitch %g, distance %g, target (%g, %g, %g); %s%s\n",
               command, bodies, camera.yawDegrees, camera.pitchDegrees, camera.distance,
               camera.target.x, camera.target.y, camera.target.z, colours,
               composited ? "; each rank draws its own bodies, composited" : "");
}

}  // namespace nbody
