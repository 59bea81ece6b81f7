#pragma once
// `nbody record`: film a run offscreen (no window, no display) into an MP4 movie: the state is
// drawn as `shot` draws it, every --steps-per-frame steps, and encoded by FFmpeg's libraries
// (H.264) on a thread of its own while the GPU goes on.

#include "app/record_options.h"

namespace nbody {

// Throws UsageError for settings that make no movie (--seconds too short for one frame),
// std::runtime_error for failures (unwritable file, no encoder) and Stopped when a signal asks it
// to stop: no file is left then.
int runRecord(const RecordOptions& options);

}  // namespace nbody
