#pragma once
// `nbody record`'s options: what to film (as `shot` draws it), how long, and the movie's size,
// rate, quality and file.

#include <CLI/CLI.hpp>

#include "app/shot_options.h"
#include "io/video_writer.h"

namespace nbody {

struct RecordOptions {
  // What is drawn and how, as for `shot` (its --steps unused), with the movie's size (--width,
  // --height), its file (--out) and --quiet.
  ShotOptions drawing;
  long long stepsPerFrame = 1;
  long long frames = 0;  // 0: as many as --seconds make
  double seconds = 10.0;
  VideoSettings video;  // --fps, --crf, --encoder; the size is the drawing's
  double orbitDegreesPerSecond = 0.0;  // of movie time

  RecordOptions();
};

// The most frames one movie may have (--frames, or what --seconds x --fps make).
inline constexpr long long kLargestFrameCount = 100'000'000;

CLI::App* addRecordCommand(CLI::App& app, RecordOptions& options);

}  // namespace nbody
