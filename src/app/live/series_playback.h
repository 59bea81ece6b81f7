#pragma once
// The window's series: a SeriesPlayer steered by the panel's requests, and what it shows put
// into the LiveSimulation, so that everything the window does with a run (drawing, trails,
// recording, screenshots, the plots, an engine switch) it does with a series too. While a series
// is open the simulation does not step: Space and the panel's Run play and pause the series, N and
// Step go to the next snapshot, and "Continue simulating from here" closes the series, leaving the
// snapshot shown as a live run. Like LiveSimulation it needs a current OpenGL context and no
// window.

#include <memory>
#include <string>

#include "app/live/app_settings.h"
#include "app/live/live_simulation.h"
#include "app/live/panel_figures.h"
#include "app/live/series_player.h"

namespace nbody {

class SeriesPlayback {
 public:
  SeriesPlayback() = default;  // no series
  // The files `pattern` names, the first of them read, playing at `rate` snapshots a second;
  // `waitForReads`: see SeriesPlayer::waitForReads (and a series opened from the panel does as this
  // one). Throws UsageError for a pattern that names no file or a run under mpiexec (a series plays
  // in one process), the loader's std::runtime_error for a first file that cannot be read.
  SeriesPlayback(const std::string& pattern, double rate, bool waitForReads = false);

  bool open() const { return player_ != nullptr; }

  struct Outcome {
    bool opened = false;  // a new series shows its first snapshot: refit the camera and colours
    std::string message;  // what the panel says of it; empty: nothing
    bool shown = false;   // a snapshot went into the simulation (its initialState)
  };
  // Carries out settings.series's requests and clears them, lets `seconds` of playing pass, and
  // puts the snapshot due into `simulation`. A snapshot the engine cannot hold is passed over,
  // saying so.
  Outcome follow(AppSettings& settings, LiveSimulation& simulation, double seconds);

  SeriesFigures figures() const;

 private:
  Outcome carryOutRequests(AppSettings& settings);
  Outcome openRequested(AppSettings& settings);
  void steer(AppSettings& settings, Outcome& outcome);
  std::string show(AppSettings& settings, LiveSimulation& simulation, const Snapshot& snapshot);

  std::unique_ptr<SeriesPlayer> player_;
  std::string shownProblem_;  // why the engine could not take the snapshot due; empty: none
  bool waitForReads_ = false;
};

}  // namespace nbody
