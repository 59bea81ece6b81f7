// The measures pictures take from bodies held in parts: the order statistic of parallel/
// order_statistics.h against std::nth_element over every value (an independent reference), and the
// centre of mass of render/mass_centre.h, whose exact sums give the same bits in any order and
// agree with a long double sum.

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "parallel/order_statistics.h"
#include "render/mass_centre.h"
#include "util/exact_sum.h"

namespace nbody {
namespace {

float nthElementAtPermille(std::vector<float> values, int permille) {
  const std::size_t rank = (values.size() - 1) * std::size_t(permille) / 1000;
  std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(rank), values.end());
  return values[rank];
}

std::vector<float> mixedValues(std::size_t count, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(-3.0f, 3.0f);
  std::vector<float> values;
  for (std::size_t i = 0; i < count; ++i) {
    const float value = uniform(random);
    // Repeated values, zeros of both signs, huge and tiny magnitudes.
    values.push_back(i % 7 == 0    ? 1.5f
                     : i % 11 == 0 ? (i % 2 ? 0.0f : -0.0f)
                     : i % 13 == 0 ? value * 1e30f
                     : i % 17 == 0 ? value * 1e-30f
                                   : value);
  }
  return values;
}

TEST(OrderStatistics, TheValueAtAPermilleIsNthElements) {
  for (const std::size_t count : {1u, 2u, 3u, 10u, 257u, 10007u})
    for (const int permille : {0, 1, 10, 500, 900, 990, 999, 1000}) {
      const std::vector<float> values = mixedValues(count, unsigned(count));
      const std::optional<float> found = valueAtPermilleOfParts(values, permille, processAlone());
      ASSERT_TRUE(found.has_value());
      EXPECT_EQ(*found, nthElementAtPermille(values, permille))
          << count << " values, permille " << permille;
    }
}

TEST(OrderStatistics, NoValuesHaveNone) {
  EXPECT_FALSE(valueAtPermilleOfParts({}, 990, processAlone()).has_value());
}

TEST(OrderStatistics, InfinitiesSortAtTheEnds) {
  const float infinity = std::numeric_limits<float>::infinity();
  const std::vector<float> values{2.0f, -infinity, infinity, -7.0f, 0.5f};
  EXPECT_EQ(*valueAtPermilleOfParts(values, 0, processAlone()), -infinity);
  EXPECT_EQ(*valueAtPermilleOfParts(values, 250, processAlone()), -7.0f);
  EXPECT_EQ(*valueAtPermilleOfParts(values, 1000, processAlone()), infinity);
}

State randomBodies(std::size_t count, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f), mass(1e-6f, 1e-3f);
  State state;
  for (std::size_t i = 0; i < count; ++i) {
    state.positionMass.emplace_back(uniform(random) * 100.0f, uniform(random), uniform(random),
                                    mass(random));
    state.velocity.emplace_back(uniform(random), uniform(random) * 1e-3f, uniform(random), 0.0f);
  }
  return state;
}

// Exact sums: the same bits however the bodies are ordered, within a rounding of a long double
// sum's quotient.
TEST(MassCentre, IsTheSameBitsInAnyOrderAndAgreesWithALongDoubleSum) {
  State bodies = randomBodies(5000, 3);
  const MassCentre first = massCentreOf(bodies, processAlone());
  std::reverse(bodies.positionMass.begin(), bodies.positionMass.end());
  std::reverse(bodies.velocity.begin(), bodies.velocity.end());
  const MassCentre reversed = massCentreOf(bodies, processAlone());
  long double mass = 0, weighted[3] = {0, 0, 0}, momentum[3] = {0, 0, 0};
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    mass += bodies.positionMass[i].w;
    for (int k = 0; k < 3; ++k) {
      weighted[k] += (long double)bodies.positionMass[i].w * bodies.positionMass[i][k];
      momentum[k] += (long double)bodies.positionMass[i].w * bodies.velocity[i][k];
    }
  }
  EXPECT_EQ(first.bodies, 5000);
  EXPECT_EQ(first.mass, reversed.mass);
  EXPECT_NEAR(first.mass, double(mass), 1e-15 * double(mass));
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(first.position[k], reversed.position[k]);
    EXPECT_EQ(first.velocity[k], reversed.velocity[k]);
    EXPECT_NEAR(first.position[k], double(weighted[k] / mass), 1e-13);
    EXPECT_NEAR(first.velocity[k], double(momentum[k] / mass), 1e-15);
  }
}

// Enough bodies that the sums are split over the CPU's threads (2^16 bodies a thread at least):
// the same bits as one sequential exact sum of each, whatever the split.
TEST(MassCentre, SplitOverThreadsIsOneSequentialExactSum) {
  const std::size_t count = 5 * (std::size_t(1) << 16) + 7;
  State bodies = randomBodies(count, 5);
  for (std::size_t i = 0; i < count; i += 97) bodies.positionMass[i] *= 1e6f;  // wide magnitudes
  ExactSum mass, weighted[3], momentum[3];
  for (std::size_t i = 0; i < count; ++i) {
    const double m = bodies.positionMass[i].w;
    mass.add(m);
    for (int k = 0; k < 3; ++k) {
      weighted[k].add(m * double(bodies.positionMass[i][k]));
      momentum[k].add(m * double(bodies.velocity[i][k]));
    }
  }
  const MassCentre found = massCentreOf(bodies, processAlone());
  ASSERT_EQ(found.mass, mass.value());
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(found.position[k], weighted[k].value() / mass.value());
    EXPECT_EQ(found.velocity[k], momentum[k].value() / mass.value());
  }
}

TEST(MassCentre, MasslessBodiesHaveTheOriginAndTheirMeanPosition) {
  State bodies = randomBodies(3, 4);
  for (glm::vec4& body : bodies.positionMass) body.w = 0.0f;
  const MassCentre found = massCentreOf(bodies, processAlone());
  EXPECT_EQ(found.position, glm::dvec3(0.0));
  EXPECT_EQ(found.velocity, glm::dvec3(0.0));
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(found.meanPosition[k],
                (double(bodies.positionMass[0][k]) + bodies.positionMass[1][k] +
                 bodies.positionMass[2][k]) /
                    3.0,
                1e-12);
}

}  // namespace
}  // namespace nbody
