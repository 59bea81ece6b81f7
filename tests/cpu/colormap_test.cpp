// Colormaps and the automatic colour range.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "render/colormap.h"
#include "render/render_settings.h"

namespace nbody {
namespace {

TEST(Colormap, EndsAtItsAnchorsAndInterpolatesBetween) {
  for (const Colormap& colormap : allColormaps()) {
    EXPECT_EQ(sampleColormap(colormap, 0.0f), colormap.anchors.front()) << colormap.name;
    EXPECT_EQ(sampleColormap(colormap, 1.0f), colormap.anchors.back()) << colormap.name;
    EXPECT_EQ(sampleColormap(colormap, -3.0f), colormap.anchors.front()) << "clamped";
    EXPECT_EQ(sampleColormap(colormap, 7.0f), colormap.anchors.back()) << "clamped";
    const float between = 0.5f / float(colormap.anchors.size() - 1);  // half way to the 2nd anchor
    const glm::vec3 expected = 0.5f * (colormap.anchors[0] + colormap.anchors[1]);
    const glm::vec3 sampled = sampleColormap(colormap, between);
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(sampled[c], expected[c], 1e-6f) << colormap.name;
  }
}

TEST(Colormap, EveryOneShowsOnABlackBackgroundAtItsLowEnd) {
  // The light of the sprites is added over the background: a colour near black would hide the
  // bodies at the low end of the range.
  for (const Colormap& colormap : allColormaps()) {
    const glm::vec3 low = colormap.anchors.front();
    EXPECT_GT(std::max({low.r, low.g, low.b}), 0.25f) << colormap.name;
  }
}

TEST(Colormap, TableSpansTheColormap) {
  const Colormap& fire = *findColormap("fire");
  const auto table = colormapTable(fire, 256);
  ASSERT_EQ(table.size(), 256u);
  EXPECT_EQ(glm::vec3(table.front()), fire.anchors.front());
  EXPECT_EQ(glm::vec3(table.back()), fire.anchors.back());
  EXPECT_EQ(table[100].a, 1.0f);
  EXPECT_EQ(findColormap("no-such-map"), nullptr);
}

TEST(ColorRange, AutoRangeUsesThe99thPercentileOfSpeedsAndTheLargestMass) {
  State state;
  state.resize(200);
  for (std::size_t i = 0; i < state.size(); ++i) {
    state.velocity[i] = glm::vec4(0.0f, float(i + 1), 0.0f, 0.0f);  // speeds 1 .. 200
    state.positionMass[i].w = 0.001f * float(i % 7 + 1);
  }
  EXPECT_EQ(autoColorRange(state, ColorBy::Speed), glm::vec2(0.0f, 198.0f));  // (200 - 1) * 0.99
  EXPECT_EQ(autoColorRange(state, ColorBy::Mass), glm::vec2(0.0f, 0.007f));
  State resting;
  resting.resize(3);
  EXPECT_EQ(autoColorRange(resting, ColorBy::Speed), glm::vec2(0.0f, 1.0f));  // never empty
}

// On a log scale, from the 1st percentile of the speeds above 0 (the smallest mass above 0): a
// body at rest or without mass has no logarithm.
TEST(ColorRange, AutoRangeOnALogScaleStartsAboveZero) {
  State state;
  state.resize(201);
  for (std::size_t i = 1; i < state.size(); ++i) {              // body 0 rests and has no mass
    state.velocity[i] = glm::vec4(0.0f, float(i), 0.0f, 0.0f);  // speeds 1 .. 200
    state.positionMass[i].w = 0.001f * float(i % 7 + 1);
  }
  state.positionMass[0].w = 0.0f;
  EXPECT_EQ(autoColorRange(state, ColorBy::Speed, true),
            glm::vec2(2.0f, 198.0f));  // 199 * 0.01, 199 * 0.99
  EXPECT_EQ(autoColorRange(state, ColorBy::Mass, true), glm::vec2(0.001f, 0.007f));
  State equal;
  equal.resize(4);
  for (glm::vec4& p : equal.positionMass) p.w = 0.5f;
  EXPECT_EQ(autoColorRange(equal, ColorBy::Mass, true), glm::vec2(0.05f, 0.5f));  // a decade below
}

// Radius and L_z from the centre of mass and its velocity: pairs of bodies of equal mass on
// opposite sides of a centre of mass moved off the origin and moving, at radii 1 .. 100 about the
// z axis, even pairs turning one way and odd pairs the other, and one body at the centre.
TEST(ColorRange, RadiusAndAngularMomentumAreMeasuredFromTheCentreOfMass) {
  const glm::vec3 centre(5.0f, -3.0f, 2.0f), drift(0.5f, 0.25f, 0.0f);
  State state;
  state.resize(201);
  for (std::size_t pair = 0; pair < 100; ++pair) {
    const float radius = float(pair + 1), angle = 0.1f * float(pair),
                turn = pair % 2 == 0 ? 1.0f : -1.0f;
    const glm::vec3 out(std::cos(angle), std::sin(angle), 0.0f), along(-out.y, out.x, 0.0f);
    for (const float side : {1.0f, -1.0f}) {  // L_z = 2 radius turn on both sides
      state.positionMass[2 * pair + (side > 0 ? 0 : 1)] =
          glm::vec4(centre + side * radius * out, 1.0f);
      state.velocity[2 * pair + (side > 0 ? 0 : 1)] =
          glm::vec4(drift + side * turn * 2.0f * along, 0.0f);
    }
  }
  state.positionMass[200] = glm::vec4(centre, 1.0f);
  state.velocity[200] = glm::vec4(drift, 0.0f);
  const ColourCentre found = colourCentreOf(state, 3.0);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(found.position[k], centre[k], 1e-4f) << k;
    EXPECT_NEAR(found.velocity[k], drift[k], 1e-6f) << k;
  }
  EXPECT_EQ(found.time, 3.0);
  EXPECT_NEAR(found.at(5.0).x, centre.x + 2.0f * drift.x, 1e-4f);  // moved on uniformly
  EXPECT_NEAR(colourQuantity(state, 9, ColorBy::Radius, found), 5.0f, 1e-4f);
  EXPECT_NEAR(colourQuantity(state, 9, ColorBy::AngularMomentum, found), 10.0f, 1e-3f);
  EXPECT_NEAR(colourQuantity(state, 10, ColorBy::AngularMomentum, found), -12.0f,
              1e-3f);  // turning back
  // Radii 0, 1, 1, 2, 2, .. 100, 100: the 99th percentile is the 198th of 200 ranks up.
  const glm::vec2 radius = autoColorRange(state, ColorBy::Radius);
  EXPECT_EQ(radius.x, 0.0f);
  EXPECT_NEAR(radius.y, 99.0f, 1e-3f);
  const glm::vec2 logRadius =
      autoColorRange(state, ColorBy::Radius, true);  // above 0: 1, 1, .. 100
  EXPECT_NEAR(logRadius.x, 1.0f, 1e-4f);
  EXPECT_NEAR(logRadius.y, 99.0f, 1e-3f);
  // |L_z| 0, 2, 2, .. 200, 200: symmetric about 0, to the 99th percentile of |L_z|.
  const glm::vec2 lz = autoColorRange(state, ColorBy::AngularMomentum);
  EXPECT_NEAR(lz.y, 198.0f, 0.01f);
  EXPECT_EQ(lz.x, -lz.y);
  EXPECT_TRUE(isSignedQuantity(ColorBy::AngularMomentum));
  EXPECT_FALSE(isSignedQuantity(ColorBy::Radius));
  // Massless bodies have no centre of mass: the origin at rest stands in, never a NaN.
  State massless;
  massless.resize(3);
  for (std::size_t i = 0; i < 3; ++i) {
    massless.positionMass[i] = glm::vec4(float(i + 1), 0.0f, 0.0f, 0.0f);
    massless.velocity[i] = glm::vec4(0.0f, 1.0f, 0.0f, 0.0f);
  }
  const ColourCentre none = colourCentreOf(massless, 1.0);
  EXPECT_EQ(none.position, glm::vec3(0.0f));
  EXPECT_EQ(none.velocity, glm::vec3(0.0f));
  EXPECT_EQ(autoColorRange(massless, ColorBy::Radius),
            glm::vec2(0.0f, 2.0f));  // radii 1, 2, 3: rank 1
}

TEST(ComponentList, NamesComponentsAsBits) {
  EXPECT_EQ(parseComponentList("0,2"), 0b101u);
  EXPECT_EQ(parseComponentList("5"), 0b100000u);
  for (const char* bad : {"", "6", "1,", ",1", "a", "12", "-1"})
    EXPECT_THROW(parseComponentList(bad), std::invalid_argument) << bad;
}

TEST(ColorBy, NamesRoundTrip) {
  for (const std::string& name : colorByNames()) EXPECT_EQ(colorByName(*findColorBy(name)), name);
  EXPECT_FALSE(findColorBy("temperature"));
}

// Each entry of shaders/colour_quantities.glsl has a row of its own in the quantities' table: one
// without would borrow the first row's name.
TEST(ColorBy, EveryQuantityOfTheSharedListHasItsOwnRow) {
  std::set<std::string> names;
#define NBODY_NAME_OF(name, number, measure) names.emplace(colorByName(ColorBy::name));
  NBODY_COLOUR_QUANTITIES(NBODY_NAME_OF)
#undef NBODY_NAME_OF
  EXPECT_EQ(names.size(), colorByNames().size());
  for (const std::string& name : colorByNames()) EXPECT_TRUE(names.contains(name)) << name;
}

// The specific energy |v - v_c|^2 / 2 + phi and the local density come with each body's field
// (render/body_field.h): the energy from its 1st to its 99th percentile (it is negative where the
// bodies are bound), the density from 0 as the speeds, leaving out what is not finite (bodies at
// one point); without a field, NaN and the range 0 to 1. The energy changes sign: no log scale.
TEST(ColorRange, EnergyAndDensityComeFromTheBodiesField) {
  State state;
  state.resize(200);
  std::vector<float> potential(200), density(200);
  for (std::size_t i = 0; i < state.size(); ++i) {
    state.positionMass[i] = glm::vec4(float(i % 10), 0.0f, 0.0f, 1.0f);
    state.velocity[i] = glm::vec4(0.0f, i % 2 == 0 ? 2.0f : -2.0f, 0.0f, 0.0f);  // the centre rests
    potential[i] = -float(i + 1);                                                // -1 .. -200
    density[i] = float(i + 1);
  }
  const ColourCentre centre = colourCentreOf(state, 0.0);
  EXPECT_FLOAT_EQ(colourQuantity(state, 9, ColorBy::Energy, centre, potential), 2.0f - 10.0f);
  EXPECT_FLOAT_EQ(colourQuantity(state, 9, ColorBy::Density, centre, density), 10.0f);
  // Energies 2 - 200 .. 2 - 1: the 1st and 99th percentiles of 200 values, ranks 1 and 197 up.
  EXPECT_EQ(autoColorRange(state, ColorBy::Energy, false, potential),
            glm::vec2(2.0f - 199.0f, 2.0f - 3.0f));
  EXPECT_EQ(autoColorRange(state, ColorBy::Density, false, density), glm::vec2(0.0f, 198.0f));
  density[7] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(autoColorRange(state, ColorBy::Density, false, density),
            glm::vec2(0.0f, 198.0f));  // rank 196 of 199 left
  EXPECT_EQ(autoColorRange(state, ColorBy::Energy), glm::vec2(0.0f, 1.0f));
  EXPECT_TRUE(
      std::isnan(colourQuantity(state, 0, ColorBy::Density, centre, std::vector<float>(3))));
  EXPECT_TRUE(isSignedQuantity(ColorBy::Energy));
  EXPECT_FALSE(isSignedQuantity(ColorBy::Density));
}

}  // namespace
}  // namespace nbody
