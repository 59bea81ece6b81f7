// Colormaps and the automatic colour range.

#include <gtest/gtest.h>

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

TEST(ColorBy, NamesRoundTrip) {
  for (const std::string& name : colorByNames()) EXPECT_EQ(colorByName(*findColorBy(name)), name);
  EXPECT_FALSE(findColorBy("temperature"));
}

}  // namespace
}  // namespace nbody
