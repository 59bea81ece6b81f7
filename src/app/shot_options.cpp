#include "app/shot_options.h"

#include "app/output_plan.h"

namespace nbody {

void addDrawingOptions(CLI::App& command, ShotOptions& options) {
  addRunOptions(command, options.run, {.inputOption = "--input"});
  addRenderOptions(command, options.render);
}

CLI::App* addShotCommand(CLI::App& app, ShotOptions& options) {
  CLI::App* command = app.add_subcommand(
      "shot", "advance a state, draw it offscreen (no display needed) and write a PNG");
  addDrawingOptions(*command, options);
  addIntegerOption(*command, "--steps", options.steps, "number of steps K before the picture", 0LL, kLargestStepCount);
  addIntegerOption(*command, "--width", options.width, "picture width in pixels", 1, 16384);
  addIntegerOption(*command, "--height", options.height, "picture height in pixels", 1, 16384);
  command->add_option("--out,-o", options.output, "PNG file to write")->check(outputPath())->capture_default_str();
  command->add_flag("--quiet,-q", options.quiet, "print nothing but errors");
  return command;
}

}  // namespace nbody
