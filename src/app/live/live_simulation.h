#pragma once
// The simulation the window shows, kept in step with AppSettings: it switches engine (the state
// moves across through download and upload: every engine holds the same float32 state), engine
// variants (setOption, state untouched), and regenerates the scene when N, scene or seed change or
// a reset is asked for (a reset after loading a snapshot goes back to the loaded state instead).
// Method, dt, softening and G are only read by the next step. It saves the run to a snapshot and
// continues a run from one (the panel's save and load). Needs a current OpenGL 4.5 context (any:
// the window's or a headless one), and no window itself, so the tests run the very switching
// logic the window uses.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/live/app_settings.h"
#include "app/live/window_options.h"
#include "app/run/snapshot_share.h"
#include "engines/engine.h"
#include "engines/state_check.h"
#include "io/snapshot.h"

namespace nbody {

class LiveSimulation {
 public:
  // Makes the engine and the scene `settings` describe; fills in settings.run.engineSettings with
  // the engine's choices. `apart`: where the engine's ranks hold their own bodies (a decomposed
  // tree under mpiexec) they keep them apart, gathering deferred (Engine::deferGathering), so that
  // N is not bounded by one GPU; what needs every body in one place is then the caller's to refuse
  // (the window draws each rank's part: parts_calls.h). Every rank makes it alike.
  explicit LiveSimulation(AppSettings& settings, bool apart = false);

  struct Changes {
    bool engineSwitched = false;
    bool variantChanged = false;
    bool sceneRegenerated = false;  // the bodies start over: refit the camera, the colour range
  };
  // Brings the engine and the state in line with `settings` and takes its Reset request. Throws
  // UsageError for a variant the engine does not offer (settings keep the engine's choices then),
  // std::runtime_error for an engine that cannot be made (settings keep the engine in use).
  Changes apply(AppSettings& settings);

  // `steps` steps of settings.run.method with settings.run.step; GPU engines only submit the work.
  void advance(const AppSettings& settings, int steps);

  // Writes the state with its time, step, method, dt, softening, G and seed (a binary snapshot
  // for a .nbody path, atomically). Throws std::exception saying why it could not.
  void save(const AppSettings& settings, const std::filesystem::path& path);
  // Where the ranks hold the bodies apart (holdsPartsApart): each rank writes its bodies into its
  // GADGET HDF5 part of the snapshot `path` names (app/run/snapshot_parts.h: path.K.hdf5 of rank
  // K; the format keeps the time and G, not the step or the method), all published once every
  // part is written whole; else none, and every rank throws alike. Every rank calls it alike, with
  // the same `path`.
  void saveParts(const AppSettings& settings, const std::filesystem::path& path);
  // Continues from the snapshot in `path` (any format readSnapshotFile reads): see continueFrom.
  // Where the ranks will hold the bodies apart and it is a part snapshot, each rank reads only its
  // share of the files (readSnapshotShare) and true is returned; else every rank reads it whole.
  // Throws the loader's std::runtime_error for a bad file, on every rank alike, leaving everything
  // as it was. Every rank calls it alike.
  bool load(AppSettings& settings, const std::filesystem::path& path);
  // The snapshot's state goes into the engine, its step and time become the run's; its method,
  // dt, softening, G and seed go into `settings` where it carries them, and the scene's N
  // becomes its N. Throws, changing nothing, when the engine cannot hold it or the method is
  // unknown.
  void continueFrom(AppSettings& settings, const Snapshot& snapshot);
  // The same from a run's start: the whole, or each rank's part of it (RunStart::partIndices),
  // which only an engine that holds the parts apart takes (keepsApart). Every rank calls it alike.
  void continueFrom(AppSettings& settings, const RunStart& start);
  // Whether `bodies` bodies, uploaded, are held apart by the ranks (see the constructor's `apart`).
  bool keepsApart(std::size_t bodies) const { return apart_ && engine_->holdsParts(bodies); }

  Engine& engine() { return *engine_; }
  // Whether the ranks hold the bodies apart now: none holds the whole state (download() and
  // gpuState() are not to be called), each draws and measures its part.
  bool holdsPartsApart() const { return engine_->gatheringDeferred() && engine_->heldParts(); }
  const Engine& engine() const { return *engine_; }
  long long stepCount() const { return stepCount_; }
  // Simulation time: that of the state loaded or generated, plus the steps since at each dt
  // (counted from where dt last changed, as a command counts from its start: StepParams::time()).
  double time() const { return time_; }
  // settings.run.step with the clock time() counts from: what to measure the state with (a moving
  // potential is where it is now) and what a snapshot keeps.
  StepParams stepNow(const AppSettings& settings) const;
  // The state the run started from (the latest regeneration or load): where a scene was made
  // while the ranks hold the bodies apart, this rank's rows of it.
  const State& initialState() const { return initial_; }

  // The first body whose state is not finite, if any (a cheap GPU pass for GPU engines).
  std::optional<std::size_t> firstNonFiniteBody() { return check_.firstNonFiniteBody(*engine_); }

 private:
  // Makes the scene anew; throws, changing nothing but putting settings.run.scene back, where the
  // engine cannot hold it.
  void regenerate(AppSettings& settings);
  void continueFrom(AppSettings& settings, const Snapshot& snapshot,
                    const std::vector<std::uint64_t>* indices, std::size_t bodies);
  void uploadScene(const SceneChoice& scene);
  // Back to the loaded snapshot's state, step and time (the settings stay as they are now).
  void startOverFromLoaded();
  void switchEngine(AppSettings& settings);
  bool changeVariant(AppSettings& settings);
  // Keeps the engine's `bodies` bodies apart where apart_ and it holds them in parts, else
  // gathered; kept apart only once the engine has made the parts (its first step after
  // `distribute` became decompose), so that the bodies are never apart with no parts to draw.
  void holdApartWherePossible(std::size_t bodies);
  // Before an upload of `bodies` bodies: gathering deferred where they will be kept apart (the
  // capacity then counts no whole state), and the engine's capacity checked, refused on every
  // rank where any refuses; refused, the engine is left as it was. A collective. Gathering is not
  // turned back on before the upload, which would gather the state about to be replaced (refused
  // past the largest texture): holdApartWherePossible does it after.
  void checkCapacityFor(std::size_t bodies);

  std::unique_ptr<Engine> engine_;
  std::string engineName_;  // as asked for (the engine made may be its fallback)
  bool apart_;              // the constructor's
  SceneChoice scene_;       // what initial_ was made from (or, after a load, stands for)
  State initial_;
  // Where initial_ is this rank's part of a loaded snapshot: its rows' indices in the whole (whose
  // N is scene_.options.bodyCount).
  std::optional<std::vector<std::uint64_t>> initialIndices_;
  std::optional<DoubleState>
      initialDoubles_;  // a loaded snapshot's doubles (io/snapshot.h), for the CPU engine
  long long stepCount_ = 0;
  double time_ = 0.0;
  // Where time() counts from: the time and step of the last state loaded, generated or of a dt
  // change; originDt_ 0 until the first step after one of those.
  double originTime_ = 0.0, originDt_ = 0.0;
  long long originStep_ = 0;
  std::optional<std::pair<long long, double>> loadedAt_;  // step and time, when initial_ was loaded
  NonFiniteCheck check_;
};

// The window's --load (`start`, startingRun's) continued from by `simulation`: where it was read a
// share a rank but the engine will not hold the parts apart after all (another engine, or too few
// bodies for the decomposed tree), it is read again whole first. Every rank calls it alike.
void continueFromInput(LiveSimulation& simulation, AppSettings& settings,
                       std::optional<RunStart>& start, const WindowOptions& options);

// How many steps "auto" puts in a frame: as many as keep the engine busy for most of the frame,
// so the window runs the simulation nearly as fast as `nbody bench` does. `stepSeconds` and
// `otherSeconds` are measured (time of one step; what a frame costs besides its steps: drawing,
// and presenting the picture, which on a virtual display is a copy through the CPU);
// `refreshSeconds` is the display's refresh period with vsync on, 0 with it off. With vsync a frame
// lasts whole refresh periods, so it takes the fewest periods (a frame no longer than
// maxFrameSeconds, unless one step is longer) in which the steps fill at least `busyFraction` of
// the frame.
int autoStepsPerFrame(double stepSeconds, double otherSeconds, double refreshSeconds,
                      double busyFraction = 0.93, double maxFrameSeconds = 0.25);
// The steps "auto" wants, held to what the wall clock saw of the last frame with steps (lastSteps
// 0: none yet): at most twice its steps where it lasted under maxFrameSeconds, and fewer in
// proportion where it lasted longer. A GPU timer that reads wrong (llvmpipe times compute work as
// next to nothing) then cannot put millions of steps into one frame.
int heldToWallClock(int wanted, int lastSteps, double lastFrameSeconds,
                    double maxFrameSeconds = 0.25);

}  // namespace nbody
