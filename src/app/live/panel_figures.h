#pragma once
// The figures the window's panel shows (app/window/control_panel.h), as plain data: the window
// fills them every frame (frame_statistics.h the rates, the window app the rest).

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "app/live/conservation_history.h"
#include "app/live/histogram.h"
#include "engines/engine.h"
#include "render/camera_path.h"
#include "render/selection.h"

namespace nbody {

// The series being played, as the panel shows it.
struct SeriesFigures {
  bool available = true;  // false under mpiexec: a series plays in one process
  bool open = false;
  bool playing = false;
  std::size_t index = 0, size = 0;
  std::string file;     // the file shown (or passed over)
  std::string problem;  // why the latest file could not be read; empty: none
};

// The camera path being made: its keyframes, and whether the camera follows it now.
struct CameraPathFigures {
  std::vector<CameraKeyframe> keyframes;
  bool playing = false;
};

// What the panel shows; the window app fills it every frame.
struct PanelFigures {
  double iterationsPerSecond = 0;    // steps per second of wall time, over the last second or so
  double interactionsPerSecond = 0;  // stages x N^2 per step, as `nbody bench` counts
  double gflops = 0;                 // 20 flop per interaction
  double gpuMillisecondsPerStep =
      -1;  // GL_TIME_ELAPSED; < 0: not measured (CPU engine, no result yet)
  double frameMilliseconds = 0;
  double drawMilliseconds = -1;  // GPU time of drawing bodies and panel; < 0: not measured
  int stepsPerFrame = 0;         // in effect (what auto chose)
  long long step = 0;
  double time = 0;                                    // simulation time
  const ConservationHistory* conservation = nullptr;  // the plots; none: not shown
  std::string renderer;                               // GL_RENDERER of the window
  std::string engineDevice;                           // what runs the engine
  std::vector<EngineOption> engineOptions;
  std::vector<std::pair<std::string, double>>
      timeSplit;                         // of a step, where the engine measures it (s)
  std::vector<std::size_t> bodyChoices;  // N the engine holds on this GPU, for the N combo
  std::string accuracy;                  // the last accuracy check's figures; empty: none asked
  std::string warning;                   // e.g. the state became non-finite; empty: none
  std::string ranks;             // a distributed run's ranks and exchange; empty: one process
  std::string message;           // e.g. where the screenshot went
  double recordingSeconds = -1;  // how long the window has been filmed; < 0: not filming
  // The switches that read or write files (snapshots, series, camera path files, screenshots,
  // recordings): false on the web page, whose files no user could reach.
  bool files = true;
  SeriesFigures series;
  CameraPathFigures cameraPath;
  const std::vector<SelectedBody>* selection =
      nullptr;                           // the picked bodies' table; none: not shown
  const Histogram* histogram = nullptr;  // none: not shown
};

}  // namespace nbody
