#include "app/run/shot_options.h"

#include <cstdio>

#include <CLI/CLI.hpp>

namespace nbody {

void addDrawingOptions(CLI::App& command, ShotOptions& options) {
  addRunOptions(command, options.run, {.inputOption = "--input"});
  addRenderOptions(command, options.render);
}

ShotStart uploadShotStart(Engine& engine, const ShotOptions& options) {
  const Snapshot start = makeInitialSnapshotFor(engine, options.run);
  const RunSettings run = resolveRunSettings(options.run, start);
  const Method& method = methodOf(run, problemSource(options.run));
  const bool parts = drawsRanksParts(engine, options.render, start.state.size());
  engine.deferGathering(parts);
  engine.uploadWithDoubles(start.state, start.doubles);
  return {method, run.step, start.time, start.step, parts};
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
