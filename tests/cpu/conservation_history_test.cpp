// The history behind the window's conservation plots: drifts against the first measurement,
// when it measures, what starts it over, and its bound.

#include "app/live/conservation_history.h"

#include <gtest/gtest.h>

#include <cmath>

namespace nbody {
namespace {

Diagnostics measured(double kinetic, double potential, glm::dvec3 momentum = {},
                     glm::dvec3 angularMomentum = {}) {
  Diagnostics d;
  d.kinetic = kinetic;
  d.potential = potential;
  d.momentum = momentum;
  d.angularMomentum = angularMomentum;
  return d;
}

ConservationSetup plainSetup() { return {"fragment", "rk4", StepParams{}}; }

TEST(ConservationHistory, DriftsAreMeasuredAgainstTheFirstMeasurement) {
  ConservationHistory history;
  history.follow(plainSetup());
  history.record(0.0, 0, 0.0, measured(0.3, -0.55, {1, 2, 3}, {0, 0, 1}));  // E0 = -0.25
  EXPECT_TRUE(history.samples().empty()) << "the reference is not a drift";
  history.record(1.0, 10, 0.01,
                 measured(0.31, -0.5599, {1 + 3e-9, 2 + 4e-9, 3}, {0, 6e-7, 1 + 8e-7}));
  ASSERT_EQ(history.samples().size(), 1u);
  const ConservationSample& sample = history.samples().back();
  EXPECT_EQ(sample.step, 10);
  EXPECT_EQ(sample.time, 0.01);
  const double e0 = 0.3 - 0.55, e1 = 0.31 - 0.5599;
  EXPECT_DOUBLE_EQ(sample.energyDrift, std::abs(e1 - e0) / std::abs(e0));
  EXPECT_NEAR(sample.energyDrift, 4e-4, 1e-12);
  EXPECT_NEAR(sample.momentumDrift, 5e-9, 1e-15);
  EXPECT_NEAR(sample.angularMomentumDrift, 1e-6, 1e-12);
  // Energy that went up and energy that went down by as much are the same drift.
  history.record(2.0, 20, 0.02, measured(0.29, -0.5401, {1, 2, 3}, {0, 0, 1}));
  EXPECT_NEAR(history.samples().back().energyDrift, 4e-4, 1e-12);
  EXPECT_EQ(history.samples().back().momentumDrift, 0.0);
}

TEST(ConservationHistory, Log10SeriesIsFlooredForAnExactZero) {
  ConservationHistory history;
  history.record(0.0, 0, 0.0, measured(0.3, -0.55));
  history.record(1.0, 1, 0.0, measured(0.3, -0.55));           // no drift at all
  history.record(2.0, 2, 0.0, measured(0.3 + 2.5e-5, -0.55));  // 1e-4
  const std::vector<float> series = history.log10Series(&ConservationSample::energyDrift);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0], ConservationHistory::kLog10Floor);
  EXPECT_NEAR(series[1], -4.0f, 1e-4f);
}

TEST(ConservationHistory, MeasuresAtOnceThenAtMostOncePerIntervalAndOnlyAfterSteps) {
  ConservationHistory history(0.25);
  EXPECT_TRUE(history.due(0.0, 0)) << "no reference yet: measure at once, even paused";
  history.record(0.0, 0, 0.0, measured(0.3, -0.55));
  EXPECT_FALSE(history.due(0.1, 5)) << "too soon";
  EXPECT_TRUE(history.due(0.25, 5));
  EXPECT_FALSE(history.due(10.0, 0)) << "paused: nothing new to measure";
  history.record(0.5, 5, 0.005, measured(0.3, -0.55));
  EXPECT_FALSE(history.due(0.7, 9));
  EXPECT_TRUE(history.due(0.75, 9));
  // A measurement that took 0.4 s waits 0.4 / kMaxCostShare, so measuring stays a small share.
  history.record(1.0, 9, 0.009, measured(0.3, -0.55), 0.4);
  EXPECT_FALSE(history.due(1.0 + 0.4 / ConservationHistory::kMaxCostShare - 0.01, 12));
  EXPECT_TRUE(history.due(1.0 + 0.4 / ConservationHistory::kMaxCostShare, 12));
}

TEST(ConservationHistory, StartsOverWhenTheSetupChangesOrOnRestart) {
  const auto changed = [](auto change) {
    ConservationHistory history;
    history.follow(plainSetup());
    history.record(0.0, 0, 0.0, measured(0.3, -0.55));
    history.record(1.0, 1, 0.0, measured(0.3, -0.56));
    ConservationSetup setup = plainSetup();
    change(setup);
    history.follow(setup);
    return history.samples().empty() && !history.reference() && history.due(1.0, 1);
  };
  EXPECT_FALSE(changed([](ConservationSetup&) {})) << "the same setup keeps the history";
  EXPECT_TRUE(changed([](ConservationSetup& s) { s.engine = "compute"; }));
  EXPECT_TRUE(changed([](ConservationSetup& s) { s.method = "euler"; }));
  EXPECT_TRUE(changed([](ConservationSetup& s) { s.step.dt *= 2; }));
  EXPECT_TRUE(changed([](ConservationSetup& s) { s.step.softening = 0.5; }));
  EXPECT_TRUE(changed([](ConservationSetup& s) { s.step.gravity = 2.0; }));

  ConservationHistory history;
  history.record(0.0, 0, 0.0, measured(0.3, -0.55));
  history.record(1.0, 1, 0.0, measured(0.3, -0.56));
  history.restart();
  EXPECT_TRUE(history.samples().empty());
  EXPECT_FALSE(history.reference());
  // The next measurement is the new reference: drifts are against it, not the old one.
  history.record(2.0, 0, 0.0, measured(0.3, -0.60));
  history.record(3.0, 1, 0.0, measured(0.3, -0.60));
  ASSERT_EQ(history.samples().size(), 1u);
  EXPECT_EQ(history.samples().back().energyDrift, 0.0);
  EXPECT_EQ(history.referenceStep(), 0);
}

TEST(ConservationHistory, KeepsTheLatestSamplesUpToItsCapacity) {
  ConservationHistory history(0.25, 50);
  history.record(0.0, 0, 0.0, measured(0.3, -0.55));
  for (long long step = 1; step <= 120; ++step)
    history.record(double(step), step, 0.0, measured(0.3, -0.55));
  ASSERT_EQ(history.samples().size(), 50u);
  EXPECT_EQ(history.samples().front().step, 71);
  EXPECT_EQ(history.samples().back().step, 120);
  EXPECT_EQ(history.log10Series(&ConservationSample::momentumDrift).size(), 50u);
}

TEST(ConservationHistory, ANonFiniteMeasurementAddsNothingAndIsNotRepeatedAtOnce) {
  ConservationHistory history;
  history.record(0.0, 0, 0.0, measured(0.3, -0.55));
  history.record(1.0, 1, 0.0, measured(NAN, -0.55));
  history.record(2.0, 2, 0.0, measured(0.3, -0.55, {INFINITY, 0, 0}));
  EXPECT_TRUE(history.samples().empty());
  // Nor is a blown-up state measured again and again while it stands still.
  ConservationHistory blownUp(0.25);
  blownUp.record(0.0, 7, 0.0, measured(NAN, -0.55));
  EXPECT_FALSE(blownUp.reference());
  EXPECT_FALSE(blownUp.due(5.0, 7));
  EXPECT_TRUE(blownUp.due(5.0, 8));
}

}  // namespace
}  // namespace nbody
