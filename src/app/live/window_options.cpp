#include "app/live/window_options.h"

namespace nbody {

AppSettings initialAppSettings(const WindowOptions& options) {
  AppSettings settings;
  settings.run = options.run.choice;
  settings.run.step.potential = givenPotential(options.run, settings.run.step.gravity);
  if (options.run.given.potential) settings.potentialText = options.run.potential;
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
    const StepParams file = start.settings->step;
    start.settings = withGivenSettings(*start.settings, options.run.given, options.run.choice);
    StepParams& step = start.settings->step;
    if (options.run.given.potential) step.potential = givenPotential(options.run, step.gravity);
    // The file's clock where it has one and dt stays (run_options.h's rule), else its time.
    if (!(file.potential && file.dt == step.dt)) {
      step.startTime = start.time;
      step.stepsDone = 0;
    }
  }
  if (options.run.given.gravity) start.units.reset();  // --gravity wins over the file's units
  const double gravity = start.units      ? start.units->gravity
                         : start.settings ? start.settings->step.gravity
                                          : options.run.choice.step.gravity;
  checkSomethingPulls(start.state,
                      start.settings && start.settings->step.potential
                          ? start.settings->step.potential
                          : givenPotential(options.run, gravity),
                      options.run.input);
  return start;
}

}  // namespace nbody
