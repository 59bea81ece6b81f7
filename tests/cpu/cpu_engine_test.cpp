// The double-precision reference engine against analytic results and conservation laws.

#include <gtest/gtest.h>

#include "engines/cpu_engine.h"
#include "support/test_support.h"

namespace nbody {
namespace {

using test::advance;

TEST(CpuEngine, CircularKeplerOrbitReturnsToItsStartAfterOnePeriod) {
  CpuEngine engine;
  const State start = keplerPair(0.0, 0.7, 0.3);
  StepParams params;
  params.softening = 0.0;
  const int steps = 2000;
  params.dt = test::kKeplerPeriod / steps;
  const State end = advance(engine, start, *findMethod("rk4"), params, steps);
  // rk4's error after one orbit of 2000 steps is ~1e-12; what remains is float32 rounding of the
  // state (a relative 6e-8).
  const auto d = test::compareStates(start, end);
  EXPECT_LT(d.maxPosition, 2e-7);
  EXPECT_LT(d.maxVelocity, 2e-7);
}

TEST(CpuEngine, TotalMomentumIsConservedByEveryMethod) {
  const State start = findScene("plummer")->generate(256, 7);
  StepParams params;
  params.softening = 0.02;
  for (const Method& method : allMethods()) {
    CpuEngine engine;
    engine.upload(start);
    engine.step(method, params, 50);
    glm::dvec3 momentum(0.0);
    for (std::size_t i = 0; i < engine.bodyCount(); ++i)
      momentum += double(start.positionMass[i].w) * engine.velocities()[i];
    // Pairwise forces cancel up to double rounding; the float32 start has |p| ~ 1e-9 already.
    EXPECT_LT(glm::length(momentum - totalMomentum(start)), 1e-13) << method.name;
  }
}

TEST(CpuEngine, SelfInteractionIsExactlyZeroWithoutSoftening) {
  CpuEngine engine;
  State single;
  single.positionMass = {glm::vec4(0.25f, -0.5f, 1.0f, 3.0f)};
  single.velocity = {glm::vec4(1.0f, 2.0f, -1.0f, 0.0f)};
  StepParams params;
  params.softening = 0.0;
  engine.upload(single);
  std::vector<glm::dvec3> acceleration;
  engine.accelerations(engine.positions(), params, acceleration);
  EXPECT_EQ(acceleration[0], glm::dvec3(0.0));
}

TEST(CpuEngine, AccelerationMatchesNewtonForTwoBodies) {
  CpuEngine engine;
  State pair;
  pair.positionMass = {glm::vec4(0, 0, 0, 2), glm::vec4(3, 4, 0, 5)};
  pair.velocity = {glm::vec4(0), glm::vec4(0)};
  StepParams params;
  params.softening = 0.0;
  params.gravity = 1.5;
  engine.upload(pair);
  std::vector<glm::dvec3> a;
  engine.accelerations(engine.positions(), params, a);
  // |a_0| = G m_1 / r^2 = 1.5 * 5 / 25 towards body 1, whose direction is (0.6, 0.8, 0).
  EXPECT_NEAR(a[0].x, 0.3 * 0.6, 1e-15);
  EXPECT_NEAR(a[0].y, 0.3 * 0.8, 1e-15);
  EXPECT_NEAR(a[1].x, -1.5 * 2.0 / 25.0 * 0.6, 1e-15);
}

TEST(CpuEngine, Rk4ReachesTheAnalyticApocentreOfAnEccentricOrbit) {
  CpuEngine engine;
  const double e = 0.5;
  const State end = test::keplerHalfOrbit(engine, *findMethod("rk4"), e, 4000);
  // The float32 start carries a relative error of ~1e-7; rk4's own error here is ~1e-11.
  EXPECT_LT(test::relativeOrbitError(end, glm::dvec3(-(1 + e), 0, 0),
                                     glm::dvec3(0, -std::sqrt((1 - e) / (1 + e)), 0)),
            1e-6);
}

// Halving dt divides the error at apocentre of an eccentric orbit by 2^order.
TEST(CpuEngine, ConvergenceOrderMatchesEachMethod) {
  CpuEngine engine(1);
  const double e = 0.5;
  const State reference = test::keplerHalfOrbit(engine, *findMethod("rk4"), e, 20000);
  for (const Method& method : allMethods()) {
    const int steps = method.order >= 4 ? 400 : 2000;
    EXPECT_NEAR(test::measuredOrder(engine, method, e, steps, reference), method.order, 0.15)
        << method.name;
  }
}

}  // namespace
}  // namespace nbody
