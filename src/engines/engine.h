#pragma once
// One interface for every engine (CPU reference, fragment shaders, compute shaders, ...). The app,
// the benchmark and the tests only talk to this and to the registry (registry.h), which says what
// else they need to know about an engine.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <glm/vec3.hpp>

#include "engines/rank_exchange.h"
#include "gl/gpu_state_view.h"
#include "physics/method.h"
#include "physics/state.h"

namespace nbody {

class HeldBodies;

// A bad engine option name or value: the user's mistake, reported as a usage error.
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A choice an engine offers: how fast it runs, never what it computes beyond rounding (loop
// unrolling, bodies per fragment, tile size...), or for an approximate engine how close it comes
// (a tree's opening angle). The benchmark sweeps them, the panel switches them. The text is for
// display and the command line; engines parse it once, when it is set, into typed members.
struct EngineOption {
  struct Range {
    double low, high;
  };
  EngineOption() = default;
  EngineOption(std::string optionName, std::string text, std::vector<std::string> offered,
               std::string initial, std::optional<Range> numbers = std::nullopt)
      : name(std::move(optionName)),
        description(std::move(text)),
        choices(std::move(offered)),
        value(std::move(initial)),
        range(numbers) {}

  std::string name, description;
  std::vector<std::string> choices;  // what the panel and `bench --sweep` offer
  std::string value;                 // one of choices, or a number within range
  // A number option: any finite value in [low, high] is accepted besides the choices (a slider in
  // the panel); nothing: only the choices.
  std::optional<Range> range;
};

// Engine options to set, by name (--set NAME=VALUE, the panel's choices).
using EngineSettings = std::map<std::string, std::string>;
// "NAME=VALUE" into the pair; throws UsageError without '='.
std::pair<std::string, std::string> parseEngineSetting(const std::string& text);

// NVIDIA's nbody convention for GFLOPS (the paper counted 19 per interaction).
constexpr double kFlopPerInteraction = 20.0;

// What the force passes of an engine that screens for contacts found at a step boundary: nothing
// looked there (unscreened), no two bodies within reach (clear), or some (possible: the state
// there is for the host to look at, physics/collisions.h).
enum class ContactScreen : std::uint8_t { unscreened, clear, possible };

// A rank's part of the state (Engine::downloadPart): its bodies as download() gives them (IDs and
// components included) and each one's index in the whole state, ascending.
struct StatePart {
  State rows;
  std::vector<std::uint64_t> indices;
  std::optional<DoubleState> doubles;  // the rows' doubles, as doublesBeyond gives them
};

// Throws std::logic_error on every rank alike where any rank's part of a state of `total` bodies
// is not one (rows, velocities, IDs and components one a body or, IDs and components, none;
// indices ascending below `total`) or the parts do not add up to `total` bodies. A collective.
void checkPartsOfState(const StatePart& part, std::size_t total);
// The whole state of `total` bodies of which every rank holds `part` (a collective); throws
// std::logic_error where a body is held twice or past the state.
State wholeOfParts(const StatePart& part, std::size_t total);
// The ID of the part's body k: its own, or its index + 1 where the part has none.
std::uint64_t bodyIdInPart(const StatePart& part, std::size_t k);

class Engine {
 public:
  virtual ~Engine() = default;

  virtual std::string name() const = 0;
  // What runs it: the GL renderer string, or the CPU and its thread count.
  virtual std::string device() const = 0;
  // True when the engine needs a current OpenGL context (and GL timer queries can time it).
  virtual bool runsOnGl() const = 0;

  virtual void upload(const State& state) = 0;
  // After upload(state): the same bodies in double (a file that holds doubles), for an engine
  // that keeps its state in double (the CPU engine), which then goes on from them bit for bit;
  // the others keep the float32 state.
  virtual void uploadDoubles(const DoubleState& /*bodies*/) {}
  virtual State download() = 0;
  // This rank's part of the current state, for outputs written a file a rank: the bodies it holds
  // where the ranks hold parts (heldParts()), else its share of the whole in index order (of N
  // bodies on K ranks, rank r's [rN/K, (r+1)N/K)); in one process the whole. Every rank calls it
  // alike.
  virtual StatePart downloadPart();
  // This rank's `part` of a state of `total` bodies (its rows' indices ascending): every rank calls
  // it alike, the parts disjoint and together every body. The engine then holds the state
  // upload() of the whole would give it. Where the ranks hold their own bodies (heldParts()) and
  // gathering is deferred, each rank holds its part alone (no rank the whole: the first step moves
  // each body to the rank the order gives it); any other engine gathers the whole and uploads it.
  // The part's doubles are not read (uploadDoubles gives an engine that keeps them the whole's).
  virtual void uploadPart(const StatePart& part, std::size_t total);
  virtual std::size_t bodyCount() const = 0;

  // Advances `steps` steps of `method`. GPU engines only submit the work: call finish() or
  // download() to wait for it.
  virtual void step(const Method& method, const StepParams& params, int steps = 1) = 0;
  virtual void finish() {}
  // An engine whose ranks each hold their own bodies (a decomposed tree under mpiexec) gathers the
  // whole state after each step() call, so that any rank may read it. `deferred`: the calls that
  // follow leave it ungathered (for a benchmark that reads nothing), and the state may not be read
  // until this is called with false, which gathers it. Every rank calls it alike. While it is
  // deferred, the whole state's textures are freed (download() and gpuState() are then logic
  // errors); the force error and the non-finite check read the ranks' parts (heldParts()).
  virtual void deferGathering(bool /*deferred*/) {}
  virtual bool gatheringDeferred() const { return false; }
  // Whether `bodies` bodies, uploaded, would be held in parts by the ranks (heldParts()).
  virtual bool holdsParts(std::size_t /*bodies*/) const { return false; }

  // Throws std::runtime_error saying why, when `bodies` bodies will not fit in what the engine
  // runs on (texture sizes, GPU or host memory). Checked before anything is allocated.
  virtual void checkCapacity(std::size_t bodies) const = 0;

  virtual std::vector<EngineOption> options() const { return {}; }
  // Throws UsageError naming the option and its choices for a bad name or value.
  virtual void setOption(const std::string& name, const std::string& value);
  // The current choices by name.
  EngineSettings settings() const;
  // A short text of the current choices, e.g. "unroll=4x4 bodies-per-fragment=4".
  std::string variant() const;

  // The state where it lives on the GPU; nothing for engines that keep it elsewhere.
  virtual std::optional<GpuStateView> gpuState() const { return std::nullopt; }
  // The state in double precision, for engines that keep it so between steps (the CPU engine):
  // diagnostics measured there resolve errors far below float32's 1e-7. Valid until the next
  // step() or upload().
  virtual std::optional<DoubleBodies> doubleState() const { return std::nullopt; }
  // Pair interactions one force evaluation costs: N^2 for direct summation; what its lists held for
  // an approximate engine (may wait for the GPU once after a change).
  virtual double interactionsPerForceEvaluation() {
    return double(bodyCount()) * double(bodyCount());
  }

  // The accelerations (G included) of the current state as this engine computes them, for
  // accuracy checks against a double-precision reference. Waits for the engine; the state is
  // unchanged.
  virtual std::vector<glm::dvec3> currentAccelerations(const StepParams& params) = 0;
  // The same for the bodies `ids` only (indices in the state), in their order; every rank calls it
  // alike.
  virtual std::vector<glm::dvec3> currentAccelerationsOf(const StepParams& params,
                                                         std::span<const std::uint32_t> ids);
  // In a distributed run whose ranks hold parts of the state (a decomposed tree's): this rank's
  // part, which readers of every body use rather than gathering the whole (force errors,
  // non-finite checks at any N); nothing where every rank has the whole state at hand.
  virtual HeldBodies* heldParts() { return nullptr; }
  // Where the engine measures it: the GPU time of its last step in named parts (e.g. a tree's
  // build and walk), in seconds, never waiting for the GPU; nothing where it does not.
  virtual std::vector<std::pair<std::string, double>> lastTimeSplit() { return {}; }
  // The potential energy as the engine estimates it (a tree's, through the tree); nothing where it
  // has no estimate of its own. estimatesPotential(): true where the diagnostics should take it,
  // because their direct O(N^2) pass would cost too much at this N.
  virtual std::optional<double> potentialEnergy(const StepParams& /*params*/) {
    return std::nullopt;
  }
  // In a distributed run (parallel/ranks.h): where this rank's time went in the exchanges since
  // the last clear; nothing in a single process or for an engine every rank runs whole.
  virtual std::optional<RankExchange::Times> exchangeTimes() const { return std::nullopt; }
  virtual void clearExchangeTimes() {}
  virtual bool estimatesPotential() const { return false; }

  // Contact screening (app/run/collision_watch.h): the force passes at step boundaries also look
  // for bodies that may touch, bodies of `bodies`' size (its slot unused), so that a run with
  // collisions reads a few bytes a step instead of the state. Nothing: off. Returns whether the
  // engine screens (the GPU engines); the others leave every boundary unscreened.
  virtual bool screenContacts(const std::optional<ContactScreenPass>& /*bodies*/) { return false; }
  // What the last step() call's passes found at each of its steps + 1 boundaries (0: the state it
  // started from; a boundary no force pass met stays unscreened). Waits for the engine; every rank
  // of a distributed run gets the same.
  virtual std::vector<ContactScreen> contactScreens() { return {}; }
  // Screens the current state with one force pass (the state is unchanged).
  virtual ContactScreen screenCurrentState(const StepParams& /*params*/) {
    return ContactScreen::unscreened;
  }
  // A copy of the state where the engine keeps it, and the state back from it: a run that stepped
  // past a boundary that must be looked at goes back (the same bits as never having gone on).
  virtual void keepState() {}
  virtual void restoreKeptState() {}

  // upload(state), and the same bodies in double where they hold more (`doubles`): the state a
  // snapshot brings, as exactly as this engine keeps it.
  void uploadWithDoubles(const State& state, const std::optional<DoubleState>& doubles) {
    upload(state);
    if (doubles) uploadDoubles(*doubles);
  }
  // What a snapshot keeps of the bodies beyond `downloaded` (this engine's download()): the
  // doubles of an engine that keeps its state in double, where they hold more than float32.
  std::optional<DoubleState> doublesBeyond(const State& downloaded) const {
    const auto doubles = doubleState();
    return doubles ? nbody::doublesBeyond(downloaded, *doubles) : std::nullopt;
  }
};

// For implementations of setOption: checks `value` against the option's choices and stores it.
void chooseOption(EngineOption& option, const std::string& value);
// Sets every option in `settings`, in order; throws UsageError for the first bad one.
void applySettings(Engine& engine, const EngineSettings& settings);

// The typed value of an option whose choices are whole numbers, or "auto" (nothing).
int integerChoice(const EngineOption& option);
std::optional<int> integerOrAuto(const EngineOption& option);
double numberChoice(const EngineOption& option);
// A number as options print it ("%g").
std::string formatNumber(double value);

// Interactions of one step of `method`, as `nbody bench` and the window count them.
inline double interactionsPerStep(Engine& engine, const Method& method) {
  return method.forceEvaluations() * engine.interactionsPerForceEvaluation();
}

}  // namespace nbody
