// The double-precision diagnostics against values worked out by hand and against a plain double
// loop over every ordered pair, the convention's literal form.

#include "diagnostics/diagnostics.h"

#include <gtest/gtest.h>

#include <cmath>

#include "diagnostics/engine_diagnostics.h"
#include "engines/cpu_engine.h"
#include "physics/scenes.h"

namespace nbody {
namespace {

State twoBodies() {
  State state;
  state.positionMass = {glm::vec4(0, 0, 0, 2), glm::vec4(3, 4, 0, 5)};
  state.velocity = {glm::vec4(1, 0, 0, 0), glm::vec4(0, -2, 1, 0)};
  return state;
}

TEST(Diagnostics, TwoBodiesByHand) {
  StepParams params;
  params.softening = 0.0;
  params.gravity = 1.5;
  const Diagnostics d = computeDiagnostics(twoBodies(), params);
  EXPECT_DOUBLE_EQ(d.mass, 7.0);
  EXPECT_DOUBLE_EQ(d.kinetic, 0.5 * 2 * 1 + 0.5 * 5 * 5);
  EXPECT_DOUBLE_EQ(d.potential, -1.5 * 2 * 5 / 5.0);
  EXPECT_EQ(d.momentum, glm::dvec3(2, -10, 5));
  // 5 (3, 4, 0) x (0, -2, 1) = 5 (4, -3, -6)
  EXPECT_EQ(d.angularMomentum, glm::dvec3(20, -15, -30));
  EXPECT_EQ(d.centreOfMass, glm::dvec3(15.0 / 7, 20.0 / 7, 0));
  EXPECT_DOUBLE_EQ(d.total(), d.kinetic + d.potential);
}

TEST(Diagnostics, SofteningEntersThePotentialAsEpsilonNotItsSquare) {
  StepParams params;
  params.softening = 1.0;
  params.gravity = 1.0;
  EXPECT_DOUBLE_EQ(computeDiagnostics(twoBodies(), params).potential, -10.0 / std::sqrt(26.0));
  params.softening = 2.0;
  EXPECT_DOUBLE_EQ(computeDiagnostics(twoBodies(), params).potential, -10.0 / std::sqrt(29.0));
}

TEST(Diagnostics, ALoneBodyHasNoPotentialEnergyEvenWithSoftening) {
  State lone;
  lone.positionMass = {glm::vec4(1, 2, 3, 4)};
  lone.velocity = {glm::vec4(0)};
  StepParams params;
  params.softening = 0.1;
  EXPECT_EQ(computeDiagnostics(lone, params).potential, 0.0);
}

// Like the force law, a pair at distance 0 without softening adds zero, not infinity.
TEST(Diagnostics, CoincidentBodiesWithoutSofteningAddZero) {
  State state = twoBodies();
  state.positionMass.push_back(state.positionMass[1]);
  state.velocity.push_back(glm::vec4(0));
  StepParams params;
  params.softening = 0.0;
  const Diagnostics d = computeDiagnostics(state, params);
  EXPECT_TRUE(std::isfinite(d.potential));
  EXPECT_DOUBLE_EQ(d.potential, -(2 * 5 + 2 * 5) / 5.0);
}

TEST(Diagnostics, PotentialIsMinusHalfTheSumOverOrderedPairs) {
  const State state = findScene("uniform-sphere")->generate(200, 4);
  StepParams params;
  params.softening = 0.05;
  params.gravity = 0.7;
  double sum = 0.0;
  for (std::size_t i = 0; i < state.size(); ++i)
    for (std::size_t j = 0; j < state.size(); ++j) {
      if (j == i) continue;
      const glm::dvec3 d = glm::dvec3(state.positionMass[j]) - glm::dvec3(state.positionMass[i]);
      sum += double(state.positionMass[i].w) * state.positionMass[j].w /
             std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z + 0.05 * 0.05);
    }
  EXPECT_NEAR(computeDiagnostics(state, params).potential, -0.5 * 0.7 * sum, 1e-14);
}

TEST(Diagnostics, RelativeEnergyErrorIsTheDriftOverTheStartingEnergy) {
  Diagnostics start, now;
  start.kinetic = 1.0;
  start.potential = -3.0;  // E0 = -2
  now.kinetic = 1.5;
  now.potential = -3.0;  // E = -1.5
  EXPECT_DOUBLE_EQ(relativeEnergyError(start, now), 0.25);
  EXPECT_DOUBLE_EQ(relativeEnergyError(start, start), 0.0);
}

// The CPU engine is measured in its double state: rk4's energy error on a Kepler orbit (2e-11
// here) shows, where the float32 download buries it under rounding (2e-9 here, up to ~1e-7).
TEST(Diagnostics, OfTheCpuEngineResolveItsDoublePrecision) {
  CpuEngine engine(1);
  engine.upload(findScene("kepler")->generate(2, 0));
  StepParams params;
  params.softening = 0.0;
  params.dt = 0.002;
  EngineDiagnostics diagnostics;
  const Diagnostics start = diagnostics.measure(engine, params);
  EXPECT_EQ(start.total(), computeDiagnostics(engine.download(), params).total());
  engine.step(*findMethod("rk4"), params, 1500);
  const double inDouble = relativeEnergyError(start, diagnostics.measure(engine, params));
  const double fromFloat =
      relativeEnergyError(start, computeDiagnostics(engine.download(), params));
  std::printf("relative energy error: %.3g in double, %.3g from the float32 state\n", inDouble,
              fromFloat);
  EXPECT_LT(std::abs(inDouble), 2e-10);
}

}  // namespace
}  // namespace nbody
