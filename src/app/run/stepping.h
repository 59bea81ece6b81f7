#pragma once
// What every command that advances a state needs between its steps: advancing in chunks short
// enough to see a stop request (app/run/stop_signals.h) and to report progress, and watching that
// the state stays finite, so that nothing non-finite is ever written or drawn.

#include <chrono>
#include <functional>
#include <string>

#include "engines/engine.h"
#include "engines/state_check.h"

namespace nbody {

// Advances `steps` steps, however many (Engine::step counts in int), with no look at stops, and
// counts them in params.stepsDone.
void advanceSteps(Engine& engine, const Method& method, StepParams& params, long long steps);

// Advances an engine in chunks of about a quarter second of work (at least one step each),
// counting the steps made in params.stepsDone.
class ChunkedStepper {
 public:
  ChunkedStepper(Engine& engine, const Method& method, StepParams& params)
      : engine_(engine), method_(method), params_(params) {}

  // Steps from `step` up to `target`; returns false when it stopped at a chunk boundary before
  // `target` because a stop was asked for (`step` says where).
  bool advance(long long& step, long long target);

  // Called about once a second with the step reached and the steps per second of the last chunk.
  std::function<void(long long step, double stepsPerSecond)> onProgress;
  // Called after every step (to draw its light into trails): the steps are then made one by one.
  std::function<void()> afterEachStep;
  // Makes a chunk's `steps` steps from `step` in place of Engine::step, counting them in
  // params.stepsDone (a run that watches for collisions: app/run/collision_watch.h).
  std::function<void(long long step, long long steps)> stepChunk;
  // The steps of a chunk: about a quarter second of work at the rate measured, as every rank of a
  // distributed run agreed at the last chunk (so that what callers decide from it is alike).
  long long chunk() const;

 private:
  using Clock = std::chrono::steady_clock;
  bool agreeOnChunk();
  Engine& engine_;
  const Method& method_;
  StepParams& params_;
  long long chunk_ = 1, agreedChunk_ = 1;
  Clock::time_point lastReport_ = Clock::now();
};

// The state of an engine as far as it is known to be finite. check() at a step boundary either
// moves the last finite step on, or throws naming it and the step where the state was first
// found not finite, with the first bad body.
class FiniteWatch {
 public:
  explicit FiniteWatch(long long firstStep) : lastFinite_(firstStep) {}

  // `time` is the simulated time at `step`, which must be finite as well. `outcome` says what the
  // failed run leaves (appended to the message).
  void check(Engine& engine, long long step, double time,
             const std::function<std::string()>& outcome);
  long long lastFiniteStep() const { return lastFinite_; }

 private:
  void throwOnGlError(Engine& engine, long long step,
                      const std::function<std::string()>& outcome) const;

  NonFiniteCheck check_;
  long long lastFinite_;
};

}  // namespace nbody
