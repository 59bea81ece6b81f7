// The double-precision diagnostics against values worked out by hand and against a plain double
// loop over every ordered pair, the convention's literal form.

#include "diagnostics/diagnostics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "diagnostics/engine_diagnostics.h"
#include "engines/cpu_engine.h"
#include "physics/scenes.h"
#include "support/test_support.h"
#include "util/exact_sum.h"

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

// --- ExactSum (util/exact_sum.h) against answers that need no rounding, or one known rounding.

__extension__ using Int128 = __int128;

double exactSumOf(const std::vector<double>& terms) {
  ExactSum sum;
  for (const double term : terms) sum.add(term);
  return sum.value();
}

TEST(ExactSum, KeepsWhatAFloatingPointSumLoses) {
  EXPECT_EQ(exactSumOf({0x1p100, 1.0, -0x1p100}), 1.0);  // a double sum gives 0
  EXPECT_EQ(exactSumOf({1e308, 1e308, -1e308}), 1e308);  // a double sum overflows
  EXPECT_EQ(exactSumOf({0x1p-1074, 0x1p-1074, -0x1p-1074}), 0x1p-1074);
  EXPECT_EQ(exactSumOf({0x1p1023, -0x1p-1074, -0x1p1023}), -0x1p-1074);
  EXPECT_EQ(exactSumOf({}), 0.0);
  EXPECT_EQ(exactSumOf({2.5, -2.5}), 0.0);
}

// Round to nearest, ties to even, once: the terms below the last place count as a whole.
TEST(ExactSum, RoundsOnceToNearestTiesToEven) {
  EXPECT_EQ(exactSumOf({1.0, 0x1p-53}), 1.0);                               // a tie: to even
  EXPECT_EQ(exactSumOf({1.0, 0x1p-53, 0x1p-200}), 1.0 + 0x1p-52);           // past the tie
  EXPECT_EQ(exactSumOf({1.0 + 0x1p-52, 0x1p-53}), 1.0 + 0x1p-51);           // a tie: up to even
  EXPECT_EQ(exactSumOf({1.0, 0x1p-54, 0x1p-54, 0x1p-300}), 1.0 + 0x1p-52);  // (a double sum: 1)
  EXPECT_EQ(exactSumOf({-1.0, -0x1p-53, -0x1p-200}), -1.0 - 0x1p-52);
  EXPECT_EQ(exactSumOf({0x1p80, 3.0, -0x1p-70}), 0x1p80);
  EXPECT_EQ(exactSumOf({0x1p1023, 0x1p1023}), std::numeric_limits<double>::infinity());
}

// Subnormal terms (read from their bits without the implicit one) add as their integers do.
TEST(ExactSum, SubnormalTermsAddExactly) {
  const double smallest = std::numeric_limits<double>::denorm_min();  // 2^-1074
  EXPECT_EQ(exactSumOf({smallest, smallest, smallest}), 3.0 * smallest);
  EXPECT_EQ(exactSumOf({0x1p-1022, smallest, -0x1p-1022}), smallest);
  EXPECT_EQ(exactSumOf({0x1p-1023, 0x1p-1023}), 0x1p-1022);  // two subnormal halves: normal
  EXPECT_EQ(exactSumOf({-0x1.8p-1070, 0x1p-1071}), -0x1p-1070);
}

TEST(ExactSum, NonFiniteTermsGiveWhatAFloatingPointSumGives) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(exactSumOf({1.0, inf}), inf);
  EXPECT_EQ(exactSumOf({-inf, 1.0}), -inf);
  EXPECT_TRUE(std::isnan(exactSumOf({inf, -inf})));
  EXPECT_TRUE(std::isnan(exactSumOf({1.0, std::numeric_limits<double>::quiet_NaN()})));
}

// Integers times one power of two have an exact sum in __int128: random ones of 52 bits at 2^-500,
// 2^0 and 2^900, in a random order and split into random partial sums, against it.
TEST(ExactSum, EqualsAnIntegerSumInAnyOrderAndAnySplit) {
  std::mt19937_64 random(5);
  for (const int scale : {-500, 0, 900}) {
    std::vector<double> terms;
    Int128 exact = 0;
    for (int k = 0; k < 3000; ++k) {
      const std::int64_t integer =
          (std::int64_t(random() >> 4) - (std::int64_t(1) << 59)) >> 7 << 7;
      exact += integer;
      terms.push_back(std::ldexp(double(integer), scale));  // 52 bits: exact
    }
    // libgcc's __int128 to double rounds to nearest, ties to even.
    const double expected = std::ldexp(double(exact), scale);
    for (int order = 0; order < 4; ++order) {
      std::shuffle(terms.begin(), terms.end(), random);
      ExactSum whole;
      std::vector<ExactSum> parts(1 + order);
      for (std::size_t k = 0; k < terms.size(); ++k) parts[random() % parts.size()].add(terms[k]);
      for (const ExactSum& part : parts) whole.merge(part);
      EXPECT_EQ(whole.value(), expected) << "scale " << scale << ", order " << order;
      EXPECT_EQ(exactSumOf(terms), expected);
    }
  }
}

// Terms of every magnitude from 2^-1071 to 2^999 and both signs: every order and split gives
// the same bits, and the value is within an ulp of a sum of the magnitudes sorted ascending.
TEST(ExactSum, TermsOfEveryMagnitudeGiveTheSameBitsInAnyOrder) {
  std::mt19937_64 random(11);
  std::vector<double> terms;
  for (int k = 0; k < 5000; ++k) {
    const double fraction = std::uniform_real_distribution<double>(0.5, 1.0)(random);
    const int exponent = int(random() % 2070) - 1070;
    terms.push_back((random() & 1 ? 1.0 : -1.0) * std::ldexp(fraction, exponent));
  }
  const double first = exactSumOf(terms);
  for (int order = 0; order < 5; ++order) {
    std::shuffle(terms.begin(), terms.end(), random);
    ExactSum whole;
    std::vector<ExactSum> parts(2 + order);
    for (std::size_t k = 0; k < terms.size(); ++k)
      parts[k * parts.size() / terms.size()].add(terms[k]);
    for (const ExactSum& part : parts) whole.merge(part);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(whole.value()), std::bit_cast<std::uint64_t>(first));
  }
  std::sort(terms.begin(), terms.end(),
            [](double a, double b) { return std::abs(a) < std::abs(b); });
  const double ascending = std::accumulate(terms.begin(), terms.end(), 0.0);
  EXPECT_LE(std::abs(first - ascending), std::abs(first) * 0x1p-50);
}

// What ranks do (exactSumOnEveryRank): several sums' parts added as integers, element by element,
// are the parts of the sum of all their terms.
TEST(ExactSum, PartsAddedAsIntegersAreTheSumOfAllTerms) {
  const std::vector<double> terms = {0x1p1000, -3.5, 0x1p-1000, 1e-300, -0x1p1000, 7.25, -0x1p-60};
  std::vector<ExactSum> sums(3);
  for (std::size_t k = 0; k < terms.size(); ++k) sums[k % 3].add(terms[k]);
  ExactSum::Parts added{};
  for (const ExactSum& sum : sums) {
    const ExactSum::Parts parts = sum.parts();
    for (std::size_t k = 0; k < added.size(); ++k) added[k] += parts[k];
  }
  EXPECT_EQ(ExactSum::fromParts(added).value(), exactSumOf(terms));
  sums[1].add(std::numeric_limits<double>::infinity());
  sums[2].add(-std::numeric_limits<double>::infinity());
  added = {};
  for (const ExactSum& sum : {sums[0], sums[1]})
    for (std::size_t k = 0; k < added.size(); ++k) added[k] += sum.parts()[k];
  EXPECT_EQ(ExactSum::fromParts(added).value(), std::numeric_limits<double>::infinity());
  for (std::size_t k = 0; k < added.size(); ++k) added[k] += sums[2].parts()[k];
  EXPECT_TRUE(std::isnan(ExactSum::fromParts(added).value()));
}

// A state's diagnostics do not depend on the order of its bodies: the same bits for every sum over
// bodies (the potential adds each body's partners in body order: to round-off alone).
TEST(Diagnostics, AnyOrderOfTheBodiesGivesTheSameBits) {
  const State state = findScene("plummer")->generate(700, 4);
  StepParams params;
  params.softening = 0.01;
  const Diagnostics first = computeDiagnostics(state, params);
  Diagnostics again = computeDiagnostics(test::shuffledBodies(state, 3), params);
  EXPECT_NEAR(again.potential, first.potential, 1e-14 * std::abs(first.potential));
  again.potential = first.potential;
  EXPECT_TRUE(test::sameBits(again, first));
}

}  // namespace
}  // namespace nbody
