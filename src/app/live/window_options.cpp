#include "app/live/window_options.h"

namespace nbody {

AppSettings initialAppSettings(const WindowOptions& options) {
  AppSettings settings;
  settings.run = options.run.choice;
  settings.run.step.potential = givenPotential(options.run, settings.run.step.gravity);
  settings.stepsPerFrame = options.stepsPerFrame == "auto" ? 0 : std::stoi(options.stepsPerFrame);
  settings.render = options.render.settings;
  settings.vsync = !options.noVsync;
  settings.showPanel = !options.hidePanel;
  settings.paused = options.paused;
  settings.followSelection = options.follow;
  if (const auto quantity = findColorBy(options.histogram))
    settings.histogram = {true, *quantity, false};
  return settings;
}

std::optional<Snapshot> startingSnapshot(const WindowOptions& options) {
  if (options.run.input.empty()) return std::nullopt;
  Snapshot start = readSnapshotFile(options.run.input);
  if (start.settings) {
    start.settings = withGivenSettings(*start.settings, options.run.given, options.run.choice);
    if (options.run.given.potential)
      start.settings->step.potential = givenPotential(options.run, start.settings->step.gravity);
  }
  if (options.run.given.gravity) start.units.reset();  // --gravity wins over the file's units
  return start;
}

}  // namespace nbody
