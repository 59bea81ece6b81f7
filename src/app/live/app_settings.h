#pragma once
// Everything the interactive window lets people change, as plain data. The control panel and the
// keys edit it; the window app applies what changed, in one place.

#include <cstddef>
#include <optional>
#include <string>

#include "app/run/run_choice.h"
#include "render/render_settings.h"

namespace nbody {

// What the panel and the keys ask of the series being played (run --play, the panel's "Open
// series"); the app carries the requests out and clears them.
struct SeriesRequests {
  std::string pattern;  // the panel's series field: a shell pattern of snapshot files
  bool open = false;    // play the files `pattern` names, from the first
  bool togglePlaying = false;
  long long stepBy = 0;  // snapshots forward (> 0) or back
  std::optional<std::size_t> seekTo;
  double rate = 10.0;         // snapshots a second
  bool continueHere = false;  // close the series: the snapshot shown runs on as a simulation
};

// What the panel and key K ask of the camera path being made (app/live/camera_path_editor.h).
struct CameraPathRequests {
  std::string file = "camera-path.txt";  // the panel's field: what Save writes and Load reads
  double spacingSeconds = 2.0;           // from the last keyframe to one added
  bool add = false;                      // the camera shown as the next keyframe
  std::optional<std::size_t> remove;
  bool clear = false, togglePlaying = false, save = false, load = false;
};

struct AppSettings {
  // What is simulated and how: the same choice the command line makes.
  RunChoice run;
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

  // One-off requests (buttons, keys); the app carries them out and clears them.
  bool singleStep = false;
  bool reset = false;         // start over: from the loaded snapshot, or the scene made anew
  bool fitCamera = false;     // aim at every body again
  bool screenshot = false;    // write a timestamped PNG of the window
  bool saveSnapshot = false;  // write a timestamped snapshot of the run, in saveFormat
  std::string saveFormat = ".nbody";  // the extension of an output format (io/snapshot.h)
  bool loadSnapshot = false;          // continue from the snapshot at snapshotPath
  bool checkAccuracy =
      false;  // measure the force error of a sample of bodies against double precision
  bool toggleRecording = false;  // start filming the window into a timestamped MP4, or stop
  bool quit = false;

  // The histogram window (app/live/histogram.h): shown or not, of which quantity, on which scale.
  struct HistogramChoice {
    bool shown = false;
    ColorBy quantity = ColorBy::Radius;
    bool logScale = false;
    bool operator==(const HistogramChoice&) const = default;
  } histogram;

  // The picked bodies (render/selection.h): the camera aims at them every frame, once, or the
  // selection is emptied.
  bool followSelection = false;
  bool centreOnSelection = false;
  bool clearSelection = false;

  std::string snapshotPath;  // the panel's load field: what was last saved, or typed in
  SeriesRequests series;
  CameraPathRequests cameraPath;
};

}  // namespace nbody
