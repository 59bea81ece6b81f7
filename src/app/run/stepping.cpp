#include "app/run/stepping.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "app/run/rank_agreement.h"
#include "app/run/stop_signals.h"
#include "engines/held_bodies.h"
#include "gl/debug.h"
#include "gl/state_guard.h"
#include "io/csv.h"
#include "parallel/ranks.h"

namespace nbody {
namespace {

constexpr double kChunkSeconds = 0.25;
constexpr long long kLargestChunk = 1 << 20;  // Engine::step counts in int

std::string vectorText(glm::vec3 v) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on the chain of + once inlined here.
  std::string text = "(";
  text.append(formatFloat(v.x))
      .append(", ")
      .append(formatFloat(v.y))
      .append(", ")
      .append(formatFloat(v.z));
  return text.append(")");
}

}  // namespace

bool ChunkedStepper::advance(long long& step, long long target) {
  while (step < target) {
    if (agreeOnChunk()) return false;
    const long long now = std::min(chunk_, target - step);
    const auto start = Clock::now();
    if (stepChunk) {
      stepChunk(step, now);
    } else if (afterEachStep) {
      for (long long k = 0; k < now; ++k) {
        engine_.step(method_, params_, 1);
        params_.stepsDone += 1;
        afterEachStep();
      }
    } else {
      engine_.step(method_, params_, int(now));
      params_.stepsDone += now;
    }
    engine_.finish();
    step += now;
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    // The next chunk: about kChunkSeconds of work at this rate (clamped as a double: a fast
    // chunk's rate does not fit a long long).
    const double fitting = seconds > 0 ? double(now) * kChunkSeconds / seconds : 2.0 * double(now);
    chunk_ = (long long)std::clamp(fitting, 1.0, double(kLargestChunk));
    if (onProgress && step < target && Clock::now() - lastReport_ >= std::chrono::seconds(1)) {
      lastReport_ = Clock::now();
      onProgress(step, seconds > 0 ? double(now) / seconds : 0.0);
    }
  }
  return true;
}

// Every rank of a distributed run takes the same chunks (the longest any proposes) and sees a stop
// at the same one: whether to stop.
long long ChunkedStepper::chunk() const { return ranks().distributed() ? agreedChunk_ : chunk_; }

bool ChunkedStepper::agreeOnChunk() {
  if (!ranks().distributed()) return stopRequested() != 0;
  std::int64_t proposed[2] = {stopRequested(), chunk_};
  ranks().maximum(proposed);
  chunk_ = agreedChunk_ = proposed[1];
  return proposed[0] != 0 && agreedStop() != 0;
}

// The check's GPU pass binds a program and textures of its own; they are put back, so that a
// watch that goes (shot's, before drawing) leaves no deleted program bound for the next guard
// to restore (GL_INVALID_VALUE).
static std::optional<std::size_t> firstBadBodyRestoringGlState(NonFiniteCheck& check,
                                                               Engine& engine) {
  if (!engine.runsOnGl()) return check.firstNonFiniteBody(engine);
  gl::StateGuard guard({0, 1});
  return check.firstNonFiniteBody(engine);
}

namespace {

// Body `body`'s position and mass, and velocity: from the rank that holds it where the ranks hold
// their parts ungathered (every rank calls it alike), else from the whole state.
std::pair<glm::vec4, glm::vec4> texelsOfBody(Engine& engine, std::size_t body) {
  HeldBodies* held = engine.heldParts();
  if (!held || !engine.gatheringDeferred()) {
    const State state = engine.download();
    return {state.positionMass.at(body), state.velocity.at(body)};
  }
  gl::StateGuard guard({0, 1});
  const std::uint32_t ids[1] = {std::uint32_t(body)};
  const StageTextures& textures = held->textures();
  return {held->texelsOf(textures.basePositionMass(), false, ids, ranks()).at(0),
          held->texelsOf(textures.baseVelocity(), false, ids, ranks()).at(0)};
}

}  // namespace

void FiniteWatch::check(Engine& engine, long long step, double time,
                        const std::function<std::string()>& outcome) {
  const auto body = firstBadBodyRestoringGlState(check_, engine);
  throwOnGlError(engine, step, outcome);
  if (!body && std::isfinite(time)) {
    lastFinite_ = step;
    return;
  }
  std::string what = "the state became non-finite between step " + std::to_string(lastFinite_) +
                     " (the last found finite) and step " + std::to_string(step) + ": ";
  if (body) {
    const auto [p, v] = texelsOfBody(engine, *body);
    what += "body " + std::to_string(*body) + " has position " + vectorText(p) + ", mass " +
            formatFloat(p.w) + ", velocity " + vectorText(v) +
            "; a smaller --dt or a larger --softening may help";
  } else {
    what += "the simulated time is no longer finite (" + formatDouble(time) +
            "); a smaller --dt may help";
  }
  throw std::runtime_error(what + ". " + outcome());
}

// A pass OpenGL refused wrote nothing: the state (or a picture) is not the run's, finite or not.
// Every rank fails where one found an error (a collective where several run).
void FiniteWatch::throwOnGlError(Engine& engine, long long step,
                                 const std::function<std::string()>& outcome) const {
  const std::string codes = engine.runsOnGl() ? gl::takeGlErrorCodes() : "";
  onEveryRankAlike([&] {
    if (codes.empty()) return;
    throw std::runtime_error("OpenGL reported" + codes + " between step " +
                             std::to_string(lastFinite_) + " and step " + std::to_string(step) +
                             ": what it refused leaves the run's state or pictures wrong "
                             "(NBODY_GL_DEBUG=1 names the call). " +
                             outcome());
  });
}

void advanceSteps(Engine& engine, const Method& method, StepParams& params, long long steps) {
  constexpr long long kStepsPerCall = 1 << 20;  // step() counts in int
  for (long long done = 0; done < steps; done += kStepsPerCall) {
    const long long now = std::min(kStepsPerCall, steps - done);
    engine.step(method, params, int(now));
    params.stepsDone += now;
  }
}

}  // namespace nbody
