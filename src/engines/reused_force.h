#pragma once
// First same as last (physics/method.h): after a step of an FSAL method (leapfrog) the engine holds
// the force at the new positions, and the next step starts from it instead of evaluating it again.
// That is only the same force while nothing else changed: the method, softening, G and the external
// potential, the state (no upload) and where the engine keeps accelerations (no variant change).
// Every engine keeps one of these and asks it before its first stage.

#include <optional>
#include <string>

#include "physics/method.h"
#include "physics/state.h"

namespace nbody {

class ReusedForce {
 public:
  // True when the first stage of `method` may take the force the last step ended with.
  bool available(const Method& method, const StepParams& params) const {
    return kept_ && kept_->method == method.name && kept_->softening == params.softening &&
           kept_->gravity == params.gravity && samePotential(kept_->potential, params.potential) &&
           (!params.potential || !params.potential->moves() || kept_->time == params.time());
  }
  // After every step (`params` of the step's start): remembers what the step's last force was
  // computed with, if `method` is FSAL (the engine has put that force where its first stage reads
  // it); forgets otherwise. A moving potential's force is the next step's only at the same time.
  void afterStep(const Method& method, const StepParams& params) {
    if (method.firstSameAsLast())
      kept_ = Key{method.name, params.softening, params.gravity, params.potential,
                  params.atStage(1, 0.0).time()};
    else
      forget();
  }
  void forget() { kept_.reset(); }

 private:
  // By value: a window's ranks may hold the same potential in different objects, and every rank
  // must decide alike.
  static bool samePotential(const SharedPotential& a, const SharedPotential& b) {
    return a == b || (a && b && *a == *b);
  }
  struct Key {
    std::string method;
    double softening, gravity;
    SharedPotential potential;
    double time;
  };
  std::optional<Key> kept_;
};

// What a stage of a step does about its force: evaluates it, takes the one the last step ended
// with (the first stage, when ReusedForce::available said so), or needs none (force-free).
enum class StageForce { evaluated, reused, none };

inline StageForce stageForce(const Method& method, int stage, bool reuseLastForce) {
  if (stage == 0 && reuseLastForce) return StageForce::reused;
  return method.needsForce(stage) ? StageForce::evaluated : StageForce::none;
}

}  // namespace nbody
