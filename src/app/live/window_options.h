#pragma once
// What the interactive window starts with (`nbody run`, and `nbody` with no command where a display
// exists): its options as the command line gives them (addWindowOptions below registers them for
// `run`, `serve` and the web page; app/window/window_app.h runs the window).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/live/app_settings.h"
#include "app/run/render_options.h"
#include "app/run/run_options.h"
#include "app/run/snapshot_share.h"
#include "io/snapshot.h"

namespace nbody {

struct WindowOptions {
  RunOptions run;                      // --load is its file to start from
  std::string stepsPerFrame = "auto";  // or a number
  RenderOptions render;
  int width = 1280, height = 800;
  bool noVsync = false;
  bool hidePanel = false;
  bool paused = false;     // start paused (Space runs)
  long long frames = 0;    // quit after this many frames; 0: run until closed
  std::string screenshot;  // write the last frame here
  std::string record;      // film the window into this MP4 from the first frame; empty: not
  std::string play;        // a shell pattern of snapshot files to play back; empty: a live run
  double playRate = 10.0;  // snapshots a second
  std::string
      cameraPath;         // a camera path file the camera follows from the first frame; empty: none
  bool follow = false;    // the camera aims at the picked bodies every frame
  std::string histogram;  // a colour quantity: the histogram window shows it; empty: closed
  bool printStats = false;  // print the panel's final figures to stdout
  bool files = true;  // the panel offers its file switches (no option: the web page unsets it)
};

// `nbody run`'s options, which `nbody serve` and the web page (app/web/) take too.
void addWindowOptions(CLI::App& command, WindowOptions& options);

// What the window starts with: the command line's run choice (engine, settings, method, scene with
// its parameters, step) and view.
AppSettings initialAppSettings(const WindowOptions& options);
// --load: the snapshot, with the settings the command line gave in place of its own; nothing
// without --load. `inShares`: under mpiexec, where the window's look needs no body beyond the
// ranks' parts (drawsFromParts) and no series plays, a part snapshot is read a share of its files
// a rank (app/run/snapshot_share.h; kept only where the engine holds the parts: continueFromInput).
// Every rank calls it alike.
std::optional<RunStart> startingRun(const WindowOptions& options, bool inShares);

}  // namespace nbody
