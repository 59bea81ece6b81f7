// The methods as data: what their tableaux imply (force evaluations, FSAL), the symplectic ones
// against hand-written kick and drift loops, and leapfrog's bounded energy error on a Kepler orbit.

#include <gtest/gtest.h>

#include <algorithm>

#include "engines/cpu_engine.h"
#include "engines/stage_units.h"
#include "support/test_support.h"

namespace nbody {
namespace {

const Method& method(const char* name) { return *findMethod(name); }

TEST(Methods, ForceEvaluationsPerStepFollowFromTheTableaux) {
  EXPECT_EQ(method("euler").forceEvaluations(), 1);
  EXPECT_EQ(method("rk2").forceEvaluations(), 2);
  EXPECT_EQ(method("rk4").forceEvaluations(), 4);
  EXPECT_EQ(method("symplectic-euler").forceEvaluations(), 1);
  EXPECT_EQ(method("leapfrog").forceEvaluations(), 1);
}

// A GPU stage binds the stage velocities and accelerations it reads as textures (stage_units.h):
// a method of more than six stages would need more texture units than OpenGL promises.
TEST(Methods, EveryMethodFitsTheTextureUnitsOpenGlGuarantees) {
  for (const Method& method : allMethods())
    EXPECT_LE(textureUnitsForStages(method.stageCount()), kGuaranteedTextureUnits) << method.name;
  EXPECT_GT(textureUnitsForStages(7), kGuaranteedTextureUnits) << "the count must be able to fail";
}

TEST(Methods, OnlyLeapfrogReusesItsLastForce) {
  for (const Method& m : allMethods())
    EXPECT_EQ(m.firstSameAsLast(), m.name == "leapfrog") << m.name;
}

TEST(Methods, ForceFreeStagesAreTheOnesThatOnlyCarryAVelocity) {
  EXPECT_TRUE(method("symplectic-euler").needsForce(0));
  EXPECT_FALSE(method("symplectic-euler").needsForce(1));
  EXPECT_TRUE(method("leapfrog").needsForce(0));
  EXPECT_FALSE(method("leapfrog").needsForce(1));
  EXPECT_TRUE(method("leapfrog").needsForce(2));
  for (int stage = 0; stage < 4; ++stage) EXPECT_TRUE(method("rk4").needsForce(stage));
}

TEST(Methods, AStageStoresItsForceOnlyWhenSomethingLaterReadsIt) {
  // rk2's step weighs only the midpoint: the first stage's force is used by its own pass alone.
  EXPECT_FALSE(method("rk2").storesForce(0));
  EXPECT_TRUE(method("rk4").storesForce(2));
  EXPECT_FALSE(method("rk4").storesForce(3));
  EXPECT_TRUE(method("leapfrog").storesForce(0));  // the closing half kick reads it
  EXPECT_TRUE(method("leapfrog").storesForce(2));  // the next step's first half kick (FSAL)
}

// The positions and velocities of a CPU engine after `steps` steps of `name`.
struct DoubleState {
  std::vector<glm::dvec3> position, velocity;
};

DoubleState runEngine(const State& start, const char* name, const StepParams& params, int steps) {
  CpuEngine engine(1);
  engine.upload(start);
  engine.step(method(name), params, steps);
  return {engine.positions(), engine.velocities()};
}

DoubleState startOf(const State& start) {
  DoubleState s;
  for (std::size_t i = 0; i < start.size(); ++i) {
    s.position.push_back(glm::dvec3(start.positionMass[i]));
    s.velocity.push_back(glm::dvec3(start.velocity[i]));
  }
  return s;
}

double largestDifference(const DoubleState& a, const DoubleState& b) {
  double d = 0.0;
  for (std::size_t i = 0; i < a.position.size(); ++i)
    d = std::max({d, glm::length(a.position[i] - b.position[i]),
                  glm::length(a.velocity[i] - b.velocity[i])});
  return d;
}

class HandWrittenLoops : public ::testing::Test {
 protected:
  const State start = findScene("plummer")->generate(64, 5);
  StepParams params{0.01, 0.05, 1.0};
  CpuEngine forces{1};
  std::vector<glm::dvec3> acceleration;

  void SetUp() override { forces.upload(start); }
  void kick(DoubleState& s, double h) {
    forces.accelerations(s.position, params, acceleration);
    for (std::size_t i = 0; i < s.velocity.size(); ++i) s.velocity[i] += h * acceleration[i];
  }
  void drift(DoubleState& s, double h) {
    for (std::size_t i = 0; i < s.position.size(); ++i) s.position[i] += h * s.velocity[i];
  }
};

TEST_F(HandWrittenLoops, SymplecticEulerKicksThenDrifts) {
  DoubleState expected = startOf(start);
  for (int step = 0; step < 30; ++step) {
    kick(expected, params.dt);
    drift(expected, params.dt);
  }
  // Only the order of additions differs: double rounding over 30 steps.
  EXPECT_LT(largestDifference(runEngine(start, "symplectic-euler", params, 30), expected), 1e-12);
  EXPECT_GT(largestDifference(runEngine(start, "euler", params, 30), expected), 1e-6)
      << "explicit Euler (drift with the old velocity) must differ";
}

TEST_F(HandWrittenLoops, LeapfrogKicksHalfDriftsWholeKicksHalf) {
  DoubleState expected = startOf(start);
  for (int step = 0; step < 30; ++step) {
    kick(expected, params.dt / 2);
    drift(expected, params.dt);
    kick(expected, params.dt / 2);
  }
  EXPECT_LT(largestDifference(runEngine(start, "leapfrog", params, 30), expected), 1e-12);
}

TEST(CpuEngineFsal, LeapfrogEvaluatesTheForceOncePerStepAfterTheFirst) {
  CpuEngine engine(1);
  engine.upload(findScene("plummer")->generate(32, 2));
  StepParams params;
  engine.step(method("leapfrog"), params, 10);
  EXPECT_EQ(engine.forceEvaluationCount(), 11);
  engine.step(method("leapfrog"), params, 5);  // continues from the kept force
  EXPECT_EQ(engine.forceEvaluationCount(), 16);
  params.softening *= 2;  // another force law: the kept force is stale
  engine.step(method("leapfrog"), params, 1);
  EXPECT_EQ(engine.forceEvaluationCount(), 18);
  engine.upload(engine.download());  // a new state: nothing kept
  engine.step(method("leapfrog"), params, 1);
  EXPECT_EQ(engine.forceEvaluationCount(), 20);
}

TEST(CpuEngineFsal, ReusingTheLastForceGivesTheBitsOfEvaluatingItAgain) {
  const State start = findScene("plummer")->generate(100, 9);
  StepParams params{0.005, 0.02, 1.0};
  CpuEngine reusing(1), fresh(1);
  reusing.upload(start);
  reusing.step(method("leapfrog"), params, 8);
  EXPECT_EQ(reusing.forceEvaluationCount(), 9);
  fresh.upload(start);
  StepParams standStill = params;
  standStill.dt = 0.0;
  for (int step = 0; step < 8; ++step) {
    fresh.step(method("leapfrog"), params, 1);
    fresh.step(method("rk2"), standStill, 1);  // x + 0 = x: moves nothing, but forgets the force
  }
  EXPECT_EQ(fresh.forceEvaluationCount(), 8 * 4);
  EXPECT_EQ(reusing.positions(), fresh.positions());
  EXPECT_EQ(reusing.velocities(), fresh.velocities());
}

// Relative energy error of the two-body orbit the CPU engine holds (masses 1/2, G = 1).
double keplerEnergy(const CpuEngine& engine) {
  const auto& x = engine.positions();
  const auto& v = engine.velocities();
  const double kinetic = 0.25 * (glm::dot(v[0], v[0]) + glm::dot(v[1], v[1]));
  return kinetic - 0.25 / glm::length(x[1] - x[0]);
}

// The largest |dE/E| during each of `orbits` orbits of an e = 0.5 Kepler orbit.
std::vector<double> energyErrorPerOrbit(const char* name, int orbits, int stepsPerOrbit) {
  CpuEngine engine(1);
  engine.upload(keplerPair(0.5));
  StepParams params;
  params.softening = 0.0;
  params.dt = test::kKeplerPeriod / stepsPerOrbit;
  const double initial = keplerEnergy(engine);
  std::vector<double> worst;
  for (int orbit = 0; orbit < orbits; ++orbit) {
    double largest = 0.0;
    for (int step = 0; step < stepsPerOrbit; ++step) {
      engine.step(method(name), params, 1);
      largest = std::max(largest, std::abs(keplerEnergy(engine) / initial - 1.0));
    }
    worst.push_back(largest);
  }
  return worst;
}

double largestOf(const std::vector<double>& values, std::size_t begin, std::size_t end) {
  return *std::max_element(values.begin() + begin, values.begin() + end);
}

TEST(Leapfrog, EnergyErrorOnAKeplerOrbitIsBoundedAndDoesNotGrowOver100Orbits) {
  const std::vector<double> leapfrog = energyErrorPerOrbit("leapfrog", 100, 400);
  // A symplectic method's energy error oscillates within each orbit, the same in the first ten
  // orbits as in the last ten (measured: 6.7e-4 in both); h^2 = (2 pi / 400)^2 sets its size.
  EXPECT_LT(largestOf(leapfrog, 0, 100), 1e-3);
  EXPECT_LT(largestOf(leapfrog, 90, 100), 1.1 * largestOf(leapfrog, 0, 10));
  // rk2, of the same order, drifts (1.0e-3 in the first ten orbits, 1.0e-2 in the last ten): the
  // check tells them apart.
  const std::vector<double> rk2 = energyErrorPerOrbit("rk2", 100, 400);
  EXPECT_GT(largestOf(rk2, 90, 100), 5.0 * largestOf(rk2, 0, 10));
}

}  // namespace
}  // namespace nbody
