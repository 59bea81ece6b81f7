#include "app/live/window_options.h"

#include <string>

#include <CLI/CLI.hpp>

#include "parallel/ranks.h"

namespace nbody {

namespace {

CLI::Validator stepsPerFrameCheck() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        if (text == "auto") return {};
        try {
          std::size_t used = 0;
          const int steps = std::stoi(text, &used);
          if (used == text.size() && steps >= 1 && steps <= 100000) return {};
        } catch (const std::exception&) {
        }
        return "expected auto or a whole number from 1 to 100000, got " + text;
      },
      "auto|STEPS");
}

}  // namespace

void addWindowOptions(CLI::App& command, WindowOptions& options) {
  addRunOptions(command, options.run, {.inputOption = "--load"});
  command
      .add_option("--steps-per-frame", options.stepsPerFrame,
                  "steps between two pictures, or auto (as many as fill the frame, so the "
                  "figures match nbody bench)")
      ->check(stepsPerFrameCheck())
      ->capture_default_str();
  addRenderOptions(command, options.render);
  addIntegerOption(command, "--width", options.width, "window width", 64, 16384);
  addIntegerOption(command, "--height", options.height, "window height", 64, 16384);
  command.add_flag("--no-vsync", options.noVsync, "do not wait for the display's refresh");
  command.add_flag("--hide-panel", options.hidePanel, "start with the panel hidden (H shows it)");
  command.add_flag("--paused", options.paused,
                   "start paused, showing the first state (Space runs)");
  addIntegerOption(command, "--frames", options.frames,
                   "quit after this many frames (for scripts and tests)", 1LL, 1LL << 40, false);
  command.add_option("--screenshot", options.screenshot, "write the last frame to this PNG file")
      ->check(outputPath());
  command
      .add_option("--record", options.record,
                  "film the window from the first frame into this MP4 file (as the Record button "
                  "does, with the panel unless --hide-panel), completed when the window closes")
      ->check(outputPath());
  CLI::Option* play =
      command
          .add_option("--play", options.play,
                      "play back the snapshot files this shell pattern names, in the order of "
                      "their numbers (quote it: 'run/step-*.nbody'); the panel steers it")
          ->excludes(command.get_option("--load"));
  addNumberOption(command, "--play-rate", options.playRate, "snapshots a second that --play shows",
                  positive())
      ->needs(play);
  command
      .add_option(
          "--camera-path", options.cameraPath,
          "FILE of camera keyframes (as record --camera-path takes): the camera follows it in "
          "seconds from the first frame, then holds at its last keyframe")
      ->check(inputPath())
      ->excludes(command.get_option("--camera"));
  command
      .add_flag("--follow", options.follow,
                "the camera aims at the picked bodies (--select) every frame")
      ->needs(command.get_option("--select"));
  command
      .add_option(
          "--histogram", options.histogram,
          "open the histogram window (top right, with the panel) counting the bodies by this "
          "quantity; the panel's View section opens and closes it")
      ->check(CLI::IsMember(colorByNames()));
  command.add_flag("--print-stats", options.printStats,
                   "print the panel's figures (iterations/s, GFLOPS, ...) to stdout on quitting");
}

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

std::optional<RunStart> startingRun(const WindowOptions& options, bool inShares) {
  if (options.run.input.empty()) return std::nullopt;
  const bool shares =
      inShares && ranks().distributed() && drawsFromParts(options.render) && options.play.empty();
  RunStart run = readRunStart(options.run.input, shares, false);  // the window keeps no radii
  Snapshot& start = run.snapshot;
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
                      options.run.input, run.holders());
  return run;
}

}  // namespace nbody
