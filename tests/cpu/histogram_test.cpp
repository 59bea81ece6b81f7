// The window's histogram against counts made here: bodies on known radii and speeds, bins found by
// hand, every body counted once (in a bin or beyond), the log scale's bins, the components.

#include <cmath>

#include <gtest/gtest.h>

#include "app/live/histogram.h"

namespace nbody {
namespace {

// Body k at radius k + 1 along x (k = 0..count-1) about a heavy body at the origin, at speed k
// / 10.
State bodiesOnKnownRadii(int count) {
  State state;
  state.positionMass.emplace_back(0.0f, 0.0f, 0.0f,
                                  1e6f);  // the centre of mass stays at the origin
  state.velocity.emplace_back(0.0f);
  for (int k = 0; k < count; ++k) {
    state.positionMass.emplace_back(float(k + 1), 0.0f, 0.0f, 1e-9f);
    state.velocity.emplace_back(0.0f, float(k) / 10.0f, 0.0f, 0.0f);
  }
  return state;
}

TEST(Histogram, CountsEveryBodyOnceInTheBinItsValueFallsIn) {
  const State state = bodiesOnKnownRadii(999);  // radii 0 (the centre) and 1..999
  const Histogram histogram = histogramOf(state, ColorBy::Radius, false, 10, 42);
  EXPECT_EQ(histogram.step, 42);
  EXPECT_NEAR(histogram.low, 0.0, 1e-3) << "the smallest radius";
  // The 99.5th percentile: rank 999 * 995 / 1000 = 994 of radii 0, 1, ..., 999.
  EXPECT_NEAR(histogram.high, 994.0, 1e-3);
  ASSERT_EQ(histogram.counts.size(), 10u);
  double counted = double(histogram.beyond);
  for (std::size_t bin = 0; bin < 10; ++bin) {
    int expected = 0;  // radii r in [bin, bin + 1) * 99.4, the last bin closed
    for (int r = 0; r <= 999; ++r) {
      const double at = r / 994.0 * 10.0;
      expected += (at >= double(bin) && at < double(bin + 1)) || (bin == 9 && at == 10.0);
    }
    // Radius 497 sits on an edge (bin 5's), where the centre's float rounding may tip it.
    EXPECT_NEAR(histogram.counts[bin], float(expected), 1.0f) << "bin " << bin;
    counted += histogram.counts[bin];
  }
  EXPECT_EQ(histogram.beyond, 5u) << "radii 995 to 999";
  EXPECT_EQ(counted, double(state.size()));
}

TEST(Histogram, OnALogScaleBinsAreEqualInLogAndZeroIsBeyond) {
  const State state = bodiesOnKnownRadii(999);  // speeds 0, 0, 0.1, ..., 99.8
  const Histogram histogram = histogramOf(state, ColorBy::Speed, true, 3, 0);
  ASSERT_TRUE(histogram.logScale);
  const double ratio = std::cbrt(histogram.high / histogram.low);
  double counted = double(histogram.beyond);
  for (std::size_t bin = 0; bin < 3; ++bin) {
    const double from = histogram.low * std::pow(ratio, double(bin)), to = from * ratio;
    int expected = 0;
    for (int k = 1; k < 999; ++k) {
      const double speed = double(float(k) / 10.0f);
      expected += speed >= from * (1 - 1e-6) &&
                  (speed < to * (1 - 1e-6) || (bin == 2 && speed <= to * (1 + 1e-6)));
    }
    EXPECT_NEAR(histogram.counts[bin], float(expected), 1.0f)
        << "bin " << bin << " (an edge may round either way)";
    counted += histogram.counts[bin];
  }
  EXPECT_EQ(counted, double(state.size()));
  EXPECT_GE(histogram.beyond, 2u) << "the two bodies at rest have no logarithm";
}

TEST(Histogram, ASignedQuantitySpansBothSidesAndComponentsAreCountedEach) {
  State state = bodiesOnKnownRadii(100);
  for (std::size_t i = 1; i < state.size(); i += 2)
    state.velocity[i].y = -state.velocity[i].y;  // half turn back
  const Histogram lz = histogramOf(state, ColorBy::AngularMomentum, true, 8, 0);
  EXPECT_FALSE(lz.logScale) << "L_z changes sign: no log scale";
  EXPECT_NEAR(lz.low, -lz.high, 1e-9);
  state.component.assign(state.size(), 2);
  state.component[0] = 5;
  state.id.resize(state.size());
  const Histogram components = histogramOf(state, ColorBy::Component, false, 8, 0);
  ASSERT_EQ(components.counts.size(), std::size_t(kComponentCount));
  EXPECT_EQ(components.counts[2], 100.0f);
  EXPECT_EQ(components.counts[5], 1.0f);
}

}  // namespace
}  // namespace nbody
