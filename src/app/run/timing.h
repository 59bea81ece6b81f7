#pragma once
// Timing an engine as `nbody bench` does, for every command that reports a speed (bench, accuracy):
// warm-up steps, then repetitions of a fixed number of steps between glFinish calls, the median
// reported, with GL_TIME_ELAPSED queries for the GPU time.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "diagnostics/conservation_report.h"
#include "diagnostics/force_accuracy.h"
#include "engines/engine.h"

namespace nbody {

class CollisionWatch;

// How the state is read back to the CPU during timing (the paper's table 5).
enum class Readback { none, sync, async };
extern const std::map<std::string, Readback> kReadbacks;  // by name
std::string_view readbackName(Readback readback);

// The longest --seconds a repetition may be asked to run.
inline constexpr double kLongestRepetitionSeconds = 3600.0;
// The most steps one repetition takes (--steps, or what --seconds asks for).
inline constexpr long long kLargestRepetitionSteps = 1LL << 30;

// Named parts of a time, in the order the work runs.
using TimeSplit = std::vector<std::pair<std::string, double>>;

struct TimingPlan {
  long long stepsPerRepetition = 0;  // 0: enough for about targetSeconds per repetition
  int repetitions = 5;
  double targetSeconds = 0.5;
};

// One rank's share of a distributed run's timed steps, in milliseconds a step of wall time: its
// force work (waiting for its GPU before an exchange), the exchange's download to host memory, MPI
// (waiting for the slowest rank included) and upload, and the rest (the replicated work).
struct RankFigures {
  int rank = 0;
  std::string host, device;
  double forceMs = 0, downloadMs = 0, mpiMs = 0, uploadMs = 0, otherMs = 0;
  double bytesPerStep = 0;  // through MPI, every rank's part
  // A decomposed tree's (engines/rank_exchange.h): LET bytes a step, and the most bodies its tree
  // held (0: a replicated run, whose every rank holds every body).
  double letBytesSentPerStep = 0, letBytesReceivedPerStep = 0, treeBodiesHeld = 0;
  double treeArrayRecords = 0;   // what its tree's arrays were sized for (0: N, replicated)
  double stateTextureBytes = 0;  // the most its state textures took (rank_exchange.h)
  // The GPU's time of the newest force evaluation of the timed steps that had finished, in named
  // parts (Engine::lastTimeSplit), in milliseconds; empty where the engine does not split it.
  TimeSplit timeSplitMs;
};

struct BenchResult {
  std::string engine, device, variant, method;
  Readback readback = Readback::none;
  std::size_t bodies = 0;
  long long stepsPerRepetition = 0;
  int repetitions = 0;
  double stepsPerSecond = 0;          // median over repetitions, wall clock around glFinish
  double gpuMillisecondsPerStep = 0;  // median of GL_TIME_ELAPSED queries; NaN for the CPU
  double interactionsPerStep = 0;     // pair interactions (a tree: what its lists held)
  double interactionsPerSecond = 0;
  double gflops = 0;                              // kFlopPerInteraction per interaction
  std::optional<ConservationCheck> conservation;  // diagnostics before and after the timed steps
  std::optional<AccuracyReport>
      accuracy;                    // an approximate engine's force error on the initial state
  std::vector<RankFigures> ranks;  // a distributed run's, every rank's; empty otherwise
  TimeSplit timeSplitMs;           // one process's, as RankFigures::timeSplitMs
  // With --collisions: the mergers of the run, the initial state's, the warm-up's and the timed
  // steps' (the conservation figures then include the energy they change).
  std::optional<long long> mergers;
};

// Times one method on an engine that already holds the initial state, counting the steps made in
// params.stepsDone. Returns early, with the repetitions done so far, when a stop is asked for
// (app/run/stop_signals.h). With `collisions` (merge, readback none), the steps are the watch's,
// as simulate makes them: screened windows, and a look on the host where one is marked.
BenchResult benchmark(Engine& engine, const Method& method, Readback readback, StepParams& params,
                      const TimingPlan& plan, CollisionWatch* collisions = nullptr);

}  // namespace nbody
