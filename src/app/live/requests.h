#pragma once
// The one-off requests of the panel's buttons and the keys (Step, Reset, Save snapshot, ...): one
// queue in AppSettings. The frame's input and the panel ask; each part of the frame takes the
// requests it carries out; whatever is left is dropped once the frame is done (the session's
// runFrame, the one place that drains the queue). A distributed run's frame orders carry the queue
// to the other ranks (app/live/frame_orders.h), which carry out their share of it.

#include <cstdint>
#include <optional>
#include <vector>

namespace nbody {

enum class Request : std::uint8_t {
  // The run.
  SingleStep,
  Reset,          // start over: from the loaded snapshot, or the scene made anew
  SaveSnapshot,   // a timestamped snapshot of the run, in AppSettings::saveFormat
  LoadSnapshot,   // continue from AppSettings::snapshotPath
  CheckAccuracy,  // the force error of a sample of bodies against double precision
  Quit,
  // The picture.
  FitCamera,        // aim at every body again
  Screenshot,       // a timestamped PNG of the picture
  ToggleRecording,  // start filming into a timestamped MP4, or stop
  CentreOnSelection,
  ClearSelection,
  // The series being played (AppSettings::series).
  OpenSeries,
  ToggleSeriesPlaying,
  StepSeries,    // value: snapshots forward (> 0) or back
  SeekSeries,    // value: the snapshot's index
  ContinueHere,  // close the series: the snapshot shown runs on as a simulation
  // The camera path being made (AppSettings::cameraPath).
  AddKeyframe,     // the camera shown, as the next keyframe
  RemoveKeyframe,  // value: the keyframe's index
  ClearKeyframes,
  TogglePath,
  SavePath,
  LoadPath,
};

class Requests {
 public:
  struct Entry {
    Request kind;
    std::int64_t value = 0;
    bool operator==(const Entry&) const = default;
  };

  void ask(Request kind, std::int64_t value = 0) { entries_.push_back({kind, value}); }
  bool asked(Request kind) const;
  // Removes every request of `kind`; whether there was one.
  bool take(Request kind);
  // The value of the latest request of `kind`, removing every one of them.
  std::optional<std::int64_t> takeValue(Request kind);
  void clear() { entries_.clear(); }
  bool empty() const { return entries_.empty(); }
  const std::vector<Entry>& entries() const { return entries_; }
  bool operator==(const Requests&) const = default;

 private:
  std::vector<Entry> entries_;
};

}  // namespace nbody
