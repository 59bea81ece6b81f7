#pragma once
// Everything the interactive window lets people change, as plain data. The control panel and the
// keys edit it; the window app compares it with what is in effect and applies the difference.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "physics/state.h"
#include "render/render_settings.h"

namespace nbody {

struct AppSettings {
  // What is simulated and how.
  std::string engine = "fragment";
  std::map<std::string, std::string> engineOptions;  // the engine's choices (unroll=4x4, ...)
  std::string method = "euler";
  std::string scene = "plummer";
  std::size_t bodies = 16384;
  std::uint64_t seed = 1;
  StepParams step;
  int stepsPerFrame = 0;  // 0: auto, as many as fill the frame budget
  bool paused = false;

  // How it is shown.
  RenderSettings render;
  bool vsync = true;
  bool showPanel = true;
  bool recordPanel = false;  // a recording films the panel too

  // One-off requests (buttons, keys); the app carries them out and clears them.
  bool singleStep = false;
  bool reset = false;         // start over: from the loaded snapshot, or the scene made anew
  bool fitCamera = false;     // aim at every body again
  bool screenshot = false;    // write a timestamped PNG of the window
  bool saveSnapshot = false;  // write a timestamped .nbody snapshot of the run
  bool loadSnapshot = false;  // continue from the snapshot at snapshotPath
  bool toggleRecording = false;  // start filming the window into a timestamped MP4, or stop
  bool quit = false;

  std::string snapshotPath;  // the panel's load field: what was last saved, or typed in
};

// The engine offered for every N; slower ones are refused above this many bodies (or warned about).
constexpr std::size_t kCpuEngineMaxBodies = 4096;

}  // namespace nbody
