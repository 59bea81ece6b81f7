#pragma once
// Collisions between the steps of a run (physics/collisions.h): at every step boundary the bodies
// that touch are found in the engine's state, then merged there, or the run halts naming them.
// The state is looked at on the host: the CPU engine's doubles, or a GPU engine's state read back
// (every rank of a distributed run holds every body and decides alike).
//
// A GPU engine screens (Engine::screenContacts): its force passes at the boundaries mark those
// where two bodies come within reach of each other, and only there does the host look. The watch
// steps in windows: it keeps the state on the GPU, steps the window, reads the window's marks (a
// word a boundary), and where one is marked goes back to the kept state, steps up to that boundary
// again (the same bits) and looks there. A window doubles after each clear one (up to
// kLongestWindow steps) and starts again from one step after a look, so that a run full of
// contacts repeats few steps. A boundary no pass screened (the end of a window of a method that is
// not FSAL) is answered by the next window's first pass, or at the end of advance() by a pass of
// its own, so that what is written there has been looked at.

#include <functional>
#include <optional>
#include <string>

#include "app/run/cli_declarations.h"

#include "engines/engine.h"
#include "io/snapshot.h"
#include "physics/collisions.h"

namespace nbody {

// --collisions, --radius, --density, into `settings`; `mergeOnly`: --collisions takes merge alone
// (bench: halt would end the timing at the first contact).
void addCollisionOptions(CLI::App& command, CollisionSettings& settings, bool mergeOnly = false);
// Throws UsageError where collisions are on without a size for the bodies.
void checkCollisionSettings(const CollisionSettings& settings);
// `settings` with the radii of `input` where collisions are on and neither --radius nor
// --density gives the bodies' size (the command line wins over the file).
CollisionSettings withInputRadii(CollisionSettings settings, const Snapshot& input);
// "merge, radius 1e-09" or "halt, density 3"; "" when off.
std::string collisionsText(const CollisionSettings& settings);

// Where a halting run stopped: the first contact, and the step.
struct CollisionHalt {
  long long step;
  std::string what;  // "bodies 3 and 7 touch at step 1049 (t = 10.49)"
};

class CollisionWatch {
 public:
  // The simulated time at a step, for the messages.
  using TimeAt = std::function<double(long long step)>;
  static constexpr long long kLongestWindow = 1024;

  // `screen`: let an engine that can screen do so (false: look at every boundary on the host, the
  // reference the screened runs are checked against).
  CollisionWatch(const CollisionSettings& settings, Engine& engine, TimeAt timeAt,
                 bool screen = true);
  ~CollisionWatch();  // the engine screens no more
  CollisionWatch(const CollisionWatch&) = delete;
  CollisionWatch& operator=(const CollisionWatch&) = delete;

  // At the boundary `step`: merges the bodies that touch and loads the result into the engine, or
  // for halt returns the first contact. Screened where the engine screens.
  std::optional<CollisionHalt> look(const StepParams& params, long long step);
  // Advances `steps` steps of `method` from the boundary `from` (looked at already), counting them
  // in params.stepsDone, and looks at every boundary it reaches; stops at a halt and returns it.
  std::optional<CollisionHalt> advance(const Method& method, StepParams& params, long long from,
                                       long long steps);

  // Called with each merger's line for the log ("step 1049 (t = 10.49): bodies 1, 2 into 1 ...").
  std::function<void(const std::string& line)> onMerger;
  long long mergers() const { return mergers_; }
  // The settings as the mergers left them: the bodies' radii, where they have their own.
  const CollisionSettings& settings() const { return settings_; }

 private:
  // At the boundary `step`, on the host: merges, or the halt.
  std::optional<CollisionHalt> check(const StepParams& params, long long step);
  std::optional<CollisionHalt> advanceOnHost(const Method& method, StepParams& params,
                                             long long from, long long steps);
  // The boundary of a window the host must look at: the first marked, or unscreened before the
  // window's end; boundary 0 only where no earlier pass answered for it.
  std::optional<long long> firstToLook(const std::vector<ContactScreen>& screens) const;

  CollisionSettings settings_;
  Engine& engine_;
  TimeAt timeAt_;
  bool screens_ = false;
  bool lastUnscreened_ = false;  // the boundary reached last is for the next window's first pass
  long long window_ = 16;
  long long mergers_ = 0;
};

}  // namespace nbody
