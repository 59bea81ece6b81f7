#pragma once
// `nbody record`: film a run offscreen (no window, no display) into an MP4 movie: the state is
// drawn as `shot` draws it, every --steps-per-frame steps, and encoded by FFmpeg's libraries
// (H.264) on a thread of its own while the GPU goes on; or, with --play, a series of snapshots
// filmed one a frame. Its options: what to film (as `shot` draws
// it), how long, and the movie's size, rate, quality and file.

#include <CLI/CLI.hpp>

#include "app/run/output_plan.h"
#include "app/run/picture.h"
#include "io/video_writer.h"

namespace nbody {
struct RecordOptions {
  // What is drawn and how, as for `shot` (its --steps unused), with the movie's size (--width,
  // --height), its file (--out) and --quiet.
  ShotOptions drawing;
  long long stepsPerFrame = 1;
  long long frames = 0;  // 0: as many as --seconds make
  double seconds = 10.0;
  VideoSettings video;                 // --fps, --crf, --encoder; the size is the drawing's
  double orbitDegreesPerSecond = 0.0;  // of movie time
  std::string play;  // a shell pattern of snapshot files filmed in place of a run; empty: a run
  std::string
      cameraPath;  // a camera path file (render/camera_path.h) the camera follows; empty: none

  RecordOptions();
};

// The most frames one movie may have (--frames, or what --seconds x --fps make).
inline constexpr long long kLargestFrameCount = 100'000'000;

void addRecordOptions(CLI::App& command, RecordOptions& options);
CommandFiles recordFiles(const RecordOptions& options);
// Throws UsageError for settings that make no movie (--seconds too short for one frame),
// std::runtime_error for failures (unwritable file, no encoder) and Stopped when a signal asks it
// to stop: no file is left then.
int runRecord(const RecordOptions& options);

}  // namespace nbody
