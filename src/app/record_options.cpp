#include "app/record_options.h"

#include <string>
#include <tuple>

#include "app/output_plan.h"

namespace nbody {
namespace {

// After addIntegerOption's check: a number of pixels that yuv420p can halve.
CLI::Validator evenPixels() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (std::stoll(text) % 2 == 0) return {};
        return "expected an even number of pixels (yuv420p keeps colour per 2 x 2 pixels), got " + text;
      },
      "EVEN");
}

void addMovieOptions(CLI::App& command, RecordOptions& options) {
  auto* frames =
      addIntegerOption(command, "--frames", options.frames, "number of frames (instead of --seconds)", 1LL,
                       kLargestFrameCount, false);
  addNumberOption(command, "--seconds", options.seconds, "length of the movie in seconds (frames = seconds x fps)",
                  positive())
      ->excludes(frames);
  addIntegerOption(command, "--fps", options.video.framesPerSecond, "frames per second of the movie", 1,
                   kFastestVideoRate);
  for (auto [name, pixels, what] : {std::tuple{"--width", &options.drawing.width, "movie width in pixels"},
                                    std::tuple{"--height", &options.drawing.height, "movie height in pixels"}})
    addIntegerOption(command, name, *pixels, what, kSmallestVideoSide, kLargestVideoSide)->check(evenPixels());
  addIntegerOption(command, "--crf", options.video.crf,
                   "quality: libx264's constant rate factor, 0 (lossless) to 51; lower is better and larger", 0, 51);
  command.add_option("--encoder", options.video.encoder,
                     "FFmpeg's H.264 encoder; another than libx264 (h264_nvenc, where FFmpeg and the "
                     "driver offer it) keeps its own preset and quality")
      ->capture_default_str();
}

}  // namespace

RecordOptions::RecordOptions() {
  drawing.width = 1920;
  drawing.height = 1080;
  drawing.output = "nbody.mp4";
}

CLI::App* addRecordCommand(CLI::App& app, RecordOptions& options) {
  CLI::App* command = app.add_subcommand(
      "record", "film a run offscreen (no display needed) into an MP4 movie (H.264), as shot draws it");
  addDrawingOptions(*command, options.drawing);
  addIntegerOption(*command, "--steps-per-frame", options.stepsPerFrame, "steps between two frames of the movie", 0LL,
                   kLargestStepCount);
  addMovieOptions(*command, options);
  addNumberOption(*command, "--orbit", options.orbitDegreesPerSecond,
                  "DEGREES_PER_SECOND of movie time: the camera turns about the vertical axis through the centre "
                  "of mass while filming (0: it stays)",
                  within(-1e6, 1e6));
  command->add_option("--out,-o", options.drawing.output, "MP4 file to write (it appears only once complete)")
      ->check(outputPath())
      ->capture_default_str();
  command->add_flag("--quiet,-q", options.drawing.quiet, "print nothing but errors (no progress)");
  return command;
}

}  // namespace nbody
