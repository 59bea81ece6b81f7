// The overlays on a headless context: the colour bar's colours against the colormap sampled on the
// CPU, each overlay painting its own part of the picture and nothing with none on, the GL state and
// the ImGui context it leaves as they were.

#include <algorithm>
#include <cstdlib>

#include <imgui.h>

#include "gl/gl_test.h"
#include "render/colormap.h"
#include "render/offscreen.h"
#include "render/overlay_layout.h"
#include "render/overlay_painter.h"

namespace nbody {
namespace {

using test::GlTest;

struct Box {
  int x0 = 1 << 30, y0 = 1 << 30, x1 = -1,
      y1 = -1;  // the lit pixels' [x0, x1] x [y0, y1]; empty: x1 < x0
  bool empty() const { return x1 < x0; }
};

Box litPixels(const Image& image) {
  Box box;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) {
      const std::uint8_t* p = image.pixel(x, y);
      if (std::max({p[0], p[1], p[2]}) <= 8) continue;
      box = {std::min(box.x0, x), std::min(box.y0, y), std::max(box.x1, x), std::max(box.y1, y)};
    }
  return box;
}

class OverlayPainterTest : public GlTest {
 protected:
  void SetUp() override {
    GlTest::SetUp();
    if (!HasFatalFailure()) painter_.emplace();
  }
  // The overlays `overlays` over black, `size` pixels large.
  Image paint(std::uint32_t overlays, glm::ivec2 size) {
    settings_.overlays = overlays;
    return renderOffscreen(size, [&] {
      glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      painter_->paint(camera_, settings_, {12.5, 250, {}});
    });
  }

  std::optional<OverlayPainter> painter_;
  RenderSettings settings_;
  Camera camera_;
};

TEST_F(OverlayPainterTest, TheColourBarShowsTheColormapWithItsLowEndAtTheBottom) {
  settings_.colormap = "viridis";
  settings_.colorRange = {0.0f, 2.0f};
  const glm::ivec2 size(256, 256);
  const Image image = paint(overlayBit(Overlay::ColourBar), size);
  // overlay_painter.cpp's bar at scale 1: x from width - 22 to width - 10, rows 30% to 70% down.
  const int x = size.x - 16, top = int(std::lround(0.3 * size.y)),
            bottom = int(std::lround(0.7 * size.y));
  const Colormap& viridis = *findColormap("viridis");
  for (int y = top + 1; y < bottom - 1; ++y) {
    const float t = (float(bottom) - (float(y) + 0.5f)) / float(bottom - top);
    const glm::vec3 expected = sampleColormap(viridis, t) * 255.0f;
    const std::uint8_t* p = image.pixel(x, y);
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(p[c], expected[c], 4.0f) << "row " << y << " channel " << c;
  }
}

TEST_F(OverlayPainterTest, EachOverlayPaintsItsOwnPartOfThePictureAndNoneNothing) {
  const glm::ivec2 size(400, 300);
  EXPECT_TRUE(litPixels(paint(0, size)).empty());
  const Box clock = litPixels(paint(overlayBit(Overlay::Clock), size));
  ASSERT_FALSE(clock.empty());
  EXPECT_LT(clock.y1, size.y / 10) << "the clock stays in the top band";
  EXPECT_NEAR((clock.x0 + clock.x1) / 2.0, size.x / 2.0, 3.0) << "centred";
  const Box bar = litPixels(paint(overlayBit(Overlay::ColourBar), size));
  ASSERT_FALSE(bar.empty());
  EXPECT_GT(bar.x0, size.x / 2);
  EXPECT_GT(bar.y0, size.y / 5);
  EXPECT_LT(bar.y1, size.y * 3 / 4);
  const Box scale = litPixels(paint(overlayBit(Overlay::ScaleBar), size));
  ASSERT_FALSE(scale.empty());
  EXPECT_LT(scale.x1, size.x / 2);
  EXPECT_GT(scale.y0, size.y * 3 / 4);
  const ScaleBar expected = scaleBarFor(camera_, size.y, 0.25f * float(size.x));
  EXPECT_NEAR(scale.x1 - scale.x0, expected.pixels, 3.0)
      << "the bar's length, its end marks and shadow";
  const Box axes = litPixels(paint(overlayBit(Overlay::Axes), size));
  ASSERT_FALSE(axes.empty());
  EXPECT_GT(axes.x0, size.x * 3 / 4);
  EXPECT_GT(axes.y0, size.y * 3 / 5);
}

TEST_F(OverlayPainterTest, ComponentsGetALegendOfThoseShownAndPresentInsteadOfABar) {
  settings_.colorBy = ColorBy::Component;
  const glm::ivec2 size(300, 300);
  const Box all = litPixels(paint(overlayBit(Overlay::ColourBar), size));
  settings_.hiddenComponents = 0b111100;
  const Box two = litPixels(paint(overlayBit(Overlay::ColourBar), size));
  ASSERT_FALSE(all.empty());
  ASSERT_FALSE(two.empty());
  // Lines 17 pixels apart at scale 1 (the 13-pixel font and 4 between): six lines reach 4 x 17
  // further.
  EXPECT_NEAR((all.y1 - all.y0) - (two.y1 - two.y0), 4 * 17, 2) << "six lines against two";
  EXPECT_EQ(all.y0, two.y0) << "both start at the same height";
  settings_.hiddenComponents = 0;
  settings_.presentComponents = 0b000011;  // no body of the others: not listed either
  const Box present = litPixels(paint(overlayBit(Overlay::ColourBar), size));
  EXPECT_EQ(present.y1 - present.y0, two.y1 - two.y0);
  // The first line's swatch is component 0's colour.
  const Image image = paint(overlayBit(Overlay::ColourBar), size);
  const std::uint8_t* swatch = image.pixel(size.x - 15, two.y0 + 6);
  const glm::vec3 gas = settings_.componentColors[0] * 255.0f;
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(swatch[c], gas[c], 2.0f) << c;
}

TEST_F(OverlayPainterTest, PutsBackTheGlStateAndTheImGuiContext) {
  ImGuiContext* window = ImGui::CreateContext();  // the window's panel, say
  ImGui::SetCurrentContext(window);
  {
    OverlayPainter painter;  // made while another context is current, as in the window
    EXPECT_EQ(ImGui::GetCurrentContext(), window);
    settings_.overlays = (1u << kOverlayCount) - 1;
    gl::VertexArray vertexArray = gl::VertexArray::create();
    gl::Texture unrelated = gl::Texture::create();
    glTextureStorage2D(unrelated.id(), 1, GL_RGBA8, 4, 4);
    renderOffscreen({64, 64}, [&] {
      glViewport(3, 4, 50, 40);
      glEnable(GL_BLEND);
      glBlendFunc(GL_ONE, GL_ONE);
      glBlendEquation(GL_FUNC_REVERSE_SUBTRACT);
      glEnable(GL_SCISSOR_TEST);
      glEnable(GL_CULL_FACE);
      glBindVertexArray(vertexArray.id());
      glBindTextureUnit(0, unrelated.id());
      painter.paint(camera_, settings_, {});
      EXPECT_TRUE(glIsEnabled(GL_SCISSOR_TEST));
      EXPECT_TRUE(glIsEnabled(GL_CULL_FACE));
      GLint viewport[4], value = 0;
      glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &value);
      EXPECT_EQ(value, GLint(vertexArray.id()));
      glActiveTexture(GL_TEXTURE0);
      glGetIntegerv(GL_TEXTURE_BINDING_2D, &value);
      EXPECT_EQ(value, GLint(unrelated.id()));
      glGetIntegerv(GL_VIEWPORT, viewport);
      EXPECT_EQ(std::vector<GLint>(viewport, viewport + 4), (std::vector<GLint>{3, 4, 50, 40}));
      glGetIntegerv(GL_BLEND_SRC_RGB, &value);
      EXPECT_EQ(value, GL_ONE);
      glGetIntegerv(GL_BLEND_EQUATION_RGB, &value);
      EXPECT_EQ(value, GL_FUNC_REVERSE_SUBTRACT);
      glGetIntegerv(GL_CURRENT_PROGRAM, &value);
      EXPECT_EQ(value, 0);
    });
    EXPECT_EQ(ImGui::GetCurrentContext(), window);
  }
  EXPECT_EQ(ImGui::GetCurrentContext(), window);
  ImGui::DestroyContext(window);
}

TEST_F(OverlayPainterTest, RefusesAColourBarItCannotShow) {
  settings_.colorRange = {1.0f, 1.0f};
  EXPECT_THROW(paint(overlayBit(Overlay::ColourBar), {64, 64}), std::invalid_argument);
  settings_.colorRange = {0.0f, 1.0f};
  settings_.colormap = "no-such-map";
  EXPECT_THROW(paint(overlayBit(Overlay::ColourBar), {64, 64}), std::invalid_argument);
  settings_.colormap = "fire";
  EXPECT_FALSE(litPixels(paint(overlayBit(Overlay::ColourBar), {64, 64})).empty())
      << "it paints again after";
}

}  // namespace
}  // namespace nbody
