#pragma once
// What the window's conservation plots show: how far energy, momentum and angular momentum have
// drifted since a reference measurement, sampled a few times per second of wall time into a
// bounded history. Plain logic (no ImGui, no GL): the window measures (EngineDiagnostics) when
// due() says so and hands the result to record(); the panel draws samples().
//
// The reference E0, P0, L0 is the first measurement after a restart. The history restarts when
// the scene starts over or a snapshot is loaded (restart()), and when the engine, method, dt,
// softening or G change (follow()): E0 itself depends on softening and G, and another engine or
// method is another run.

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "diagnostics/diagnostics.h"
#include "physics/state.h"

namespace nbody {

// What the drifts are measured under; any change starts the history over.
struct ConservationSetup {
  std::string engine, method;
  StepParams step;

  bool operator==(const ConservationSetup& other) const;
};

struct ConservationSample {
  long long step = 0;
  double time = 0.0;                  // simulation time
  double energyDrift = 0.0;           // |E - E0| / |E0|
  double momentumDrift = 0.0;         // |P - P0|
  double angularMomentumDrift = 0.0;  // |L - L0|
};

class ConservationHistory {
 public:
  // Measuring costs an O(N^2) potential pass, so at most one every `intervalSeconds` of wall time,
  // and never more than kMaxCostShare of the wall time (on a slow GPU one pass can take a second).
  static constexpr double kIntervalSeconds = 0.25;
  static constexpr double kMaxCostShare = 0.2;
  static constexpr std::size_t kCapacity = 300;  // at 4 per second, the last 75 seconds
  // The range of the logarithms: an error of exactly zero has none, and one relative to an E0 of
  // zero is infinite.
  static constexpr float kLog10Floor = -16.0f, kLog10Ceiling = 16.0f;

  explicit ConservationHistory(double intervalSeconds = kIntervalSeconds,
                               std::size_t capacity = kCapacity);

  // Forgets the reference and the samples: the next measurement becomes the reference.
  void restart();
  // Restarts when `setup` differs from the one the history was measured under.
  void follow(const ConservationSetup& setup);

  // Whether to measure now: at once after a restart, else once the interval has passed and the
  // simulation has moved on since the last measurement.
  bool due(double wallSeconds, long long step) const;
  // A measurement at `wallSeconds` that took `costSeconds`. The first after a restart becomes the
  // reference; later ones become samples (the oldest goes when the history is full). A measurement
  // that is not finite (the state blew up; the window says so) adds nothing.
  void record(double wallSeconds, long long step, double time, const Diagnostics& now,
              double costSeconds = 0.0);

  const std::optional<Diagnostics>& reference() const { return reference_; }
  long long referenceStep() const { return referenceStep_; }
  const std::deque<ConservationSample>& samples() const { return samples_; }
  std::size_t capacity() const { return capacity_; }

  // log10 of one quantity of every sample, oldest first, clamped to [kLog10Floor, kLog10Ceiling]:
  // drifts span many orders of magnitude, so their logarithm is what a plot can show.
  std::vector<float> log10Series(double ConservationSample::*quantity) const;

 private:
  double intervalSeconds_;
  std::size_t capacity_;
  std::optional<ConservationSetup> setup_;
  std::optional<Diagnostics> reference_;
  long long referenceStep_ = 0;
  std::deque<ConservationSample> samples_;
  double nextDueSeconds_ = 0.0;
  std::optional<long long> lastStep_;  // of the last measurement since the restart
};

// One line for --print-stats: the number of samples and the latest drifts.
void printConservation(const ConservationHistory& history);

}  // namespace nbody
