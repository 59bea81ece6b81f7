#pragma once
// Collisions between the steps of a run (physics/collisions.h): at every step boundary the bodies
// that touch are found in the engine's state, then merged there, or the run halts naming them.
// The state is looked at on the host: the CPU engine's doubles, or a GPU engine's state read back
// (every rank of a distributed run holds every body and decides alike).

#include <functional>
#include <optional>
#include <string>

#include "app/run/cli_declarations.h"

#include "engines/engine.h"
#include "physics/collisions.h"

namespace nbody {

// --collisions, --radius, --density, into `settings`.
void addCollisionOptions(CLI::App& command, CollisionSettings& settings);
// Throws UsageError where collisions are on without a size for the bodies.
void checkCollisionSettings(const CollisionSettings& settings);

// Where a halting run stopped: the first contact, and the step.
struct CollisionHalt {
  long long step;
  std::string what;  // "bodies 3 and 7 touch at step 1049 (t = 10.49)"
};

class CollisionWatch {
 public:
  explicit CollisionWatch(const CollisionSettings& settings) : settings_(settings) {}

  // At the boundary `step` (simulated time `time`): merges the bodies that touch and loads the
  // result into the engine, or for halt returns the first contact.
  std::optional<CollisionHalt> check(Engine& engine, const StepParams& params, long long step,
                                     double time);

  // Called with each merger's line for the log ("step 1049 (t = 10.49): bodies 1, 2 into 1 ...").
  std::function<void(const std::string& line)> onMerger;
  long long mergers() const { return mergers_; }

 private:
  CollisionSettings settings_;
  long long mergers_ = 0;
};

}  // namespace nbody
