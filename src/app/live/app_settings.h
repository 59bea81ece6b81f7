#pragma once
// Everything the interactive session lets people change, as plain data. The control panel and the
// keys edit it; the session applies what changed, in one place.

#include <string>

#include "app/live/requests.h"
#include "app/run/run_choice.h"
#include "render/render_settings.h"

namespace nbody {

// The panel's fields of the series being played (run --play, the panel's "Open series"); its
// buttons are requests (app/live/requests.h).
struct SeriesChoice {
  std::string pattern;  // a shell pattern of snapshot files: what "Open series" plays
  double rate = 10.0;   // snapshots a second
};

// The panel's fields of the camera path being made (app/live/camera_path_editor.h).
struct CameraPathChoice {
  std::string file = "camera-path.txt";  // what Save writes and Load reads
  double spacingSeconds = 2.0;           // from the last keyframe to one added
};

struct AppSettings {
  // What is simulated and how: the same choice the command line makes.
  RunChoice run;
  // --potential's text: a state loaded without a potential of its own runs in it, read with the G
  // the state brings (app/live/live_simulation.h).
  std::string potentialText;
  int stepsPerFrame = 0;  // 0: auto, as many as fill the frame budget
  bool paused = false;

  // How it is shown.
  RenderSettings render;
  // The colour range is fitted to the state shown whenever the colouring changes or the run
  // starts over; off: render.colorRange as set by hand.
  bool automaticColorRange = true;
  bool vsync = true;
  bool showPanel = true;
  bool recordPanel = false;  // a recording films the panel too

  // One-off requests (buttons, keys), taken by what carries them out.
  Requests requests;
  std::string saveFormat = ".nbody";  // the extension of an output format (io/snapshot.h)

  // The histogram window (app/live/histogram.h): shown or not, of which quantity, on which scale.
  struct HistogramChoice {
    bool shown = false;
    ColorBy quantity = ColorBy::Radius;
    bool logScale = false;
    bool operator==(const HistogramChoice&) const = default;
  } histogram;

  // The camera aims at the picked bodies (render/selection.h) every frame.
  bool followSelection = false;

  std::string snapshotPath;  // the panel's load field: what was last saved, or typed in
  SeriesChoice series;
  CameraPathChoice cameraPath;
};

}  // namespace nbody
