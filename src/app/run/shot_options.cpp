#include "app/run/shot_options.h"

#include <cstdio>

namespace nbody {

void addDrawingOptions(CLI::App& command, ShotOptions& options) {
  addRunOptions(command, options.run, {.inputOption = "--input"});
  addRenderOptions(command, options.render);
}

ShotStart uploadShotStart(Engine& engine, const ShotOptions& options) {
  const Snapshot start = makeInitialSnapshotFor(engine, options.run);
  const RunSettings run = resolveRunSettings(options.run, start);
  const Method& method = methodOf(run, problemSource(options.run));
  engine.upload(start.state);
  return {method, run.step, start.time, start.step};
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

}  // namespace nbody
