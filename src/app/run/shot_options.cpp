#include "app/run/shot_options.h"

#include <cstdio>

#include <CLI/CLI.hpp>

#include "app/run/snapshot_share.h"

namespace nbody {

void addDrawingOptions(CLI::App& command, ShotOptions& options) {
  addRunOptions(command, options.run, {.inputOption = "--input"});
  addRenderOptions(command, options.render);
}

// The scene, or the input: a scene made a part a rank, a part snapshot read a share a rank, where
// the ranks draw their own bodies (the decomposed tree, at any size: app/run/snapshot_share.h);
// those bodies never gathered (Engine::deferGathering), from the upload on.
ShotStart uploadShotStart(Engine& engine, const ShotOptions& options) {
  RunStart start = apartRunStart(
      engine, options.run,
      [&](std::size_t bodies) { return drawsRanksParts(engine, options.render, bodies); },
      false);  // pictures need no radii
  const RunSettings run = resolveRunSettings(options.run, start.snapshot, start.holders());
  const Method& method = methodOf(run, problemSource(options.run));
  uploadRunStart(start, engine);
  return {method, run.step, start.snapshot.time, start.snapshot.step, engine.gatheringDeferred()};
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
