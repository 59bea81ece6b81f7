// What the overlays say and where they point: the colour bar's values against the formula the
// sprites' colormap uses, the scale bar and the axes against the camera's own matrices (a point
// projected to the picture's pixels), the switches' names.

#include <bit>
#include <cmath>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <glm/geometric.hpp>

#include "render/camera.h"
#include "render/overlay_layout.h"

namespace nbody {
namespace {

// Where a point lands on a picture `size` pixels large, rows running down.
glm::vec2 pixelOf(const Camera& camera, glm::vec2 size, glm::vec3 point) {
  const glm::vec4 clip =
      camera.projection(size.x / size.y) * camera.view() * glm::vec4(point, 1.0f);
  const glm::vec2 ndc = glm::vec2(clip) / clip.w;
  return {(ndc.x + 1.0f) / 2.0f * size.x, (1.0f - ndc.y) / 2.0f * size.y};
}

// 1, 2 or 5 times a power of ten.
bool isRound(double value) {
  const double mantissa = std::abs(value) / std::pow(10.0, std::floor(std::log10(std::abs(value))));
  for (double round : {1.0, 2.0, 5.0, 10.0})
    if (std::abs(mantissa - round) < 1e-6) return true;
  return false;
}

Camera someCamera(std::mt19937& random) {
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  Camera camera;
  camera.target = {unit(random) * 4 - 2, unit(random) * 4 - 2, unit(random) * 4 - 2};
  camera.yawDegrees = unit(random) * 360.0f;
  camera.pitchDegrees = unit(random) * 180.0f - 90.0f;
  camera.distance = 0.01f + unit(random) * 50.0f;
  camera.verticalFovDegrees = 20.0f + unit(random) * 60.0f;
  return camera;
}

TEST(OverlayLayout, LinearTicksAreRoundEvenlySpacedAndWhereTheColormapPutsThem) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> exponent(-6.0, 6.0), unit(0.0, 1.0);
  for (int trial = 0; trial < 500; ++trial) {
    const double scale = std::pow(10.0, exponent(random));
    const double low = (unit(random) * 2.0 - 1.0) * scale,
                 high = low + (0.01 + unit(random)) * scale;
    const glm::vec2 range{float(low), float(high)};
    const std::vector<Tick> ticks = colourBarTicks(range, false);
    ASSERT_GE(ticks.size(), 3u) << low << " to " << high;
    ASSERT_LE(ticks.size(), 7u) << low << " to " << high;
    const double spacing = ticks[1].value - ticks[0].value;
    EXPECT_TRUE(isRound(spacing)) << spacing;
    for (std::size_t i = 0; i < ticks.size(); ++i) {
      const Tick& tick = ticks[i];
      if (i > 0) {
        EXPECT_NEAR(tick.value - ticks[i - 1].value, spacing, spacing * 1e-6);
      }
      EXPECT_GE(tick.value, double(range.x) - spacing * 1e-6);
      EXPECT_LE(tick.value, double(range.y) + spacing * 1e-6);
      // The colormap's t for this value (point_sprite.vert): where the bar must mark it.
      const double t = (tick.value - double(range.x)) / (double(range.y) - double(range.x));
      EXPECT_NEAR(tick.fraction, t, 1e-5);
      // The label reads back as the value, to a small part of the spacing.
      EXPECT_NEAR(std::stod(tick.label), tick.value, spacing * 0.01) << tick.label;
    }
  }
}

TEST(OverlayLayout, LogTicksAreRoundAndWhereTheLogColormapPutsThem) {
  std::mt19937 random(8);
  std::uniform_real_distribution<double> exponent(-8.0, 8.0), decades(0.05, 9.0);
  for (int trial = 0; trial < 500; ++trial) {
    const double low = std::pow(10.0, exponent(random)),
                 high = low * std::pow(10.0, decades(random));
    const glm::vec2 range{float(low), float(high)};
    const std::vector<Tick> ticks = colourBarTicks(range, true);
    ASSERT_GE(ticks.size(), 2u);
    ASSERT_LE(ticks.size(), 10u);
    // Round values (1, 2 or 5 times a power of ten) inside the range, counted here: with two or
    // more the ticks are round, else they are the ends.
    int roundInside = 0;
    for (int e = -12; e <= 20; ++e)
      for (double mantissa : {1.0, 2.0, 5.0}) {
        const double value = mantissa * std::pow(10.0, e);
        roundInside +=
            value >= double(range.x) * (1 - 1e-9) && value <= double(range.y) * (1 + 1e-9);
      }
    const bool endsOnly = roundInside < 2;
    if (endsOnly) {
      ASSERT_EQ(ticks.size(), 2u);
      EXPECT_NEAR(ticks.front().value, double(range.x), 1e-12 * double(range.x));
      EXPECT_NEAR(ticks.back().value, double(range.y), 1e-12 * double(range.y));
    }
    for (const Tick& tick : ticks) {
      if (!endsOnly) {
        EXPECT_TRUE(isRound(tick.value)) << tick.value;
      }
      const double t =
          std::log(tick.value / double(range.x)) / std::log(double(range.y) / double(range.x));
      EXPECT_NEAR(tick.fraction, t, 1e-5) << tick.value << " in " << low << " to " << high;
      EXPECT_NEAR(std::stod(tick.label), tick.value, tick.value * 0.01) << tick.label;
    }
    for (std::size_t i = 1; i < ticks.size(); ++i) EXPECT_GT(ticks[i].value, ticks[i - 1].value);
  }
}

TEST(OverlayLayout, ARangeWithoutRoundValuesLabelsItsEnds) {
  const std::vector<Tick> ticks = colourBarTicks({1.01f, 1.02f}, true);  // no 1, 2 or 5 inside
  ASSERT_EQ(ticks.size(), 2u);
  EXPECT_FLOAT_EQ(ticks[0].fraction, 0.0f);
  EXPECT_FLOAT_EQ(ticks[1].fraction, 1.0f);
  EXPECT_EQ(ticks[0].label, "1.01");
  EXPECT_EQ(ticks[1].label, "1.02");
}

TEST(OverlayLayout, ASignedRangeLabelsZeroAsZero) {
  const std::vector<Tick> ticks = colourBarTicks({-0.37f, 0.37f}, false);
  std::vector<std::string> labels;
  for (const Tick& tick : ticks) labels.push_back(tick.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"-0.2", "0", "0.2"}));
  EXPECT_NEAR(ticks[1].fraction, 0.5f, 1e-6f);
}

TEST(OverlayLayout, AColourBarNeedsARangeItCanShow) {
  EXPECT_THROW(colourBarTicks({1.0f, 1.0f}, false), std::invalid_argument);
  EXPECT_THROW(colourBarTicks({2.0f, 1.0f}, false), std::invalid_argument);
  EXPECT_THROW(colourBarTicks({0.0f, 1.0f}, true), std::invalid_argument);
}

TEST(OverlayLayout, TheScaleBarIsAsLongAsItsLengthProjectsAtTheTarget) {
  std::mt19937 random(9);
  for (int trial = 0; trial < 200; ++trial) {
    const Camera camera = someCamera(random);
    const glm::vec2 size(640.0f, 360.0f);
    const ScaleBar bar = scaleBarFor(camera, int(size.y), 160.0f);
    EXPECT_TRUE(isRound(bar.length)) << bar.length;
    EXPECT_LE(bar.pixels, 160.0f * (1.0f + 1e-5f));
    EXPECT_GT(bar.pixels, 160.0f / 2.5f * (1.0f - 1e-5f))
        << "a rounder length that fits was left out";
    // Its two ends at the target, across the picture: their distance in pixels, through the
    // matrices.
    const glm::vec3 half = camera.right() * float(bar.length / 2.0);
    const float projected = glm::length(pixelOf(camera, size, camera.target + half) -
                                        pixelOf(camera, size, camera.target - half));
    EXPECT_NEAR(bar.pixels, projected, projected * 1e-4f);
    EXPECT_NEAR(std::stod(bar.label), bar.length, bar.length * 1e-6);
  }
}

TEST(OverlayLayout, AxisArrowsPointWhereTheAxesProjectFarthestFirst) {
  std::mt19937 random(10);
  for (int trial = 0; trial < 200; ++trial) {
    const Camera camera = someCamera(random);
    const glm::vec2 size(400.0f, 400.0f);
    const std::array<AxisArrow, 3> arrows = axisArrows(camera);
    EXPECT_LE(arrows[0].towardsViewer, arrows[1].towardsViewer);
    EXPECT_LE(arrows[1].towardsViewer, arrows[2].towardsViewer);
    for (const AxisArrow& arrow : arrows) {
      glm::vec3 axis(0.0f);
      axis[arrow.name - 'x'] = 1.0f;
      EXPECT_NEAR(arrow.towardsViewer,
                  glm::dot(axis, camera.eye() - camera.target) / camera.distance, 1e-4f);
      EXPECT_NEAR(glm::length(arrow.direction) * glm::length(arrow.direction) +
                      arrow.towardsViewer * arrow.towardsViewer,
                  1.0f, 1e-4f);
      if (glm::length(arrow.direction) < 0.2f)
        continue;                                 // nearly along the view: no direction to check
      const float step = camera.distance * 0.1f;  // the direction on the picture holds for any step
      const glm::vec2 moved =
          pixelOf(camera, size, camera.target + axis * step) - pixelOf(camera, size, camera.target);
      const glm::vec2 expected = glm::normalize(moved), actual = glm::normalize(arrow.direction);
      EXPECT_NEAR(actual.x, expected.x, 2e-3f) << arrow.name;
      EXPECT_NEAR(actual.y, expected.y, 2e-3f) << arrow.name;
    }
  }
}

TEST(OverlayLayout, SwitchesAreNamedOrAllOrNone) {
  EXPECT_EQ(parseOverlayList("none"), 0u);
  EXPECT_EQ(parseOverlayList("all"), (1u << kOverlayCount) - 1);
  EXPECT_EQ(parseOverlayList("clock,axes"), overlayBit(Overlay::Clock) | overlayBit(Overlay::Axes));
  for (const std::string& name : overlayNames())
    EXPECT_EQ(std::popcount(parseOverlayList(name)), 1) << name;
  for (const std::string bad : {"", "clock,", "clocks", "all,clock", "colorbar,,axes"})
    EXPECT_THROW(parseOverlayList(bad), std::invalid_argument) << bad;
}

TEST(OverlayLayout, TheClockSaysTheTimeAndTheStep) {
  EXPECT_EQ(clockText(1.25, 400), "t = 1.25   step 400");
  EXPECT_EQ(clockText(0.0, 0), "t = 0   step 0");
}

TEST(OverlayLayout, TextGrowsWithThePicture) {
  EXPECT_EQ(overlayScale(256), 1);
  EXPECT_EQ(overlayScale(720), 1);
  EXPECT_EQ(overlayScale(1080), 2);
  EXPECT_EQ(overlayScale(2160), 4);
}

}  // namespace
}  // namespace nbody
