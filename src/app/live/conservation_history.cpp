#include "app/live/conservation_history.h"

#include <cstdio>

#include <algorithm>
#include <cmath>
#include <glm/geometric.hpp>

namespace nbody {
namespace {

bool isFinite(const Diagnostics& d) {
  return std::isfinite(d.total()) && std::isfinite(glm::length(d.momentum)) &&
         std::isfinite(glm::length(d.angularMomentum));
}

}  // namespace

bool ConservationSetup::operator==(const ConservationSetup& other) const {
  return engine == other.engine && method == other.method && step.dt == other.step.dt &&
         step.softening == other.step.softening && step.gravity == other.step.gravity;
}

ConservationHistory::ConservationHistory(double intervalSeconds, std::size_t capacity)
    : intervalSeconds_(intervalSeconds), capacity_(std::max<std::size_t>(capacity, 1)) {}

void ConservationHistory::restart() {
  reference_.reset();
  samples_.clear();
  lastStep_.reset();
}

void ConservationHistory::follow(const ConservationSetup& setup) {
  if (setup_ && *setup_ == setup) return;
  restart();
  setup_ = setup;
}

bool ConservationHistory::due(double wallSeconds, long long step) const {
  if (!lastStep_) return true;
  return step != *lastStep_ && wallSeconds >= nextDueSeconds_;
}

void ConservationHistory::record(double wallSeconds, long long step, double time,
                                 const Diagnostics& now, double costSeconds) {
  // A blown-up state is measured no more often than a sound one: it stays as it is, paused.
  nextDueSeconds_ = wallSeconds + std::max(intervalSeconds_, costSeconds / kMaxCostShare);
  lastStep_ = step;
  if (!isFinite(now)) return;
  if (!reference_) {
    reference_ = now;
    referenceStep_ = step;
    return;
  }
  const Diagnostics& start = *reference_;
  samples_.push_back({step, time, std::abs(relativeEnergyError(start, now)),
                      momentumDrift(start, now), angularMomentumDrift(start, now)});
  if (samples_.size() > capacity_) samples_.pop_front();
}

std::vector<float> ConservationHistory::log10Series(double ConservationSample::*quantity) const {
  std::vector<float> series;
  series.reserve(samples_.size());
  for (const ConservationSample& sample : samples_) {
    const double value = sample.*quantity;
    series.push_back(value > 0.0 ? std::clamp(float(std::log10(value)), kLog10Floor, kLog10Ceiling)
                                 : kLog10Floor);
  }
  return series;
}

void printConservation(const ConservationHistory& history) {
  if (history.samples().empty()) {
    std::printf("run: conservation: no samples\n");
    return;
  }
  const ConservationSample& last = history.samples().back();
  std::printf(
      "run: conservation: %zu samples, at step %lld |dE/E0| %.3e, |P-P0| %.3e, |L-L0| %.3e\n",
      history.samples().size(), last.step, last.energyDrift, last.momentumDrift,
      last.angularMomentumDrift);
}

}  // namespace nbody
