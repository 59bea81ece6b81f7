#include "app/commands/shot_command.h"

#include <cstdio>
#include <optional>

#include "app/run/engine_session.h"
#include "app/run/rank_agreement.h"
#include "app/run/stop_signals.h"
#include "io/output_file.h"
#include "io/png.h"
#include "util/printable_text.h"

namespace nbody {

void addShotOptions(CLI::App& command, ShotOptions& options) {
  addDrawingOptions(command, options);
  addIntegerOption(command, "--steps", options.steps, "number of steps K before the picture", 0LL,
                   kLargestStepCount);
  addIntegerOption(command, "--width", options.width, "picture width in pixels", 1, 16384);
  addIntegerOption(command, "--height", options.height, "picture height in pixels", 1, 16384);
  command.add_option("--out,-o", options.output, "PNG file to write")
      ->check(outputPath())
      ->capture_default_str();
  command.add_flag("--quiet,-q", options.quiet, "print nothing but errors");
}

CommandFiles shotFiles(const ShotOptions& options) {
  return {{{"--out", options.output}}, {{"--input", options.run.input}}};
}

int runShot(const ShotOptions& options) {
  std::optional<OutputFile> output;  // an unwritable path fails before the work
  onEveryRankAlike([&] { output.emplace(options.output); });
  EngineSession session = openEngine(options.run.choice.engine, options.run.choice.engineSettings,
                                     nullptr, true, options.quiet);
  if (!options.quiet)
    std::fprintf(stderr, "shot: %s engine (%s) on %s, drawn by renderer %s\n",
                 session.engine->name().c_str(), session.engine->variant().c_str(),
                 session.engine->device().c_str(), session.context->info().renderer.c_str());
  const Image image = takeShot(*session.engine, options);
  throwIfStopped([] { return "after drawing. " + kNoPicture; });
  writePng(image, *output);
  output->commit([] { throwIfStopped([] { return "while writing the picture. " + kNoPicture; }); });
  if (!options.quiet)
    std::fprintf(stderr, "shot: wrote %s (%d x %d)\n",
                 withoutControlCharacters(options.output).c_str(), image.width, image.height);
  return 0;
}

}  // namespace nbody
