// Trails (RenderSettings::trailHalfLife): a single body moving across the picture leaves a streak
// whose light, measured at every point the body passed, has halved once per half-life of
// simulated time since it was there; a body at rest does not pile up light; trails off, going
// back in time or a first picture draw exactly what a renderer without trails draws.

#include <cmath>
#include <optional>

#include <glm/trigonometric.hpp>

#include "gl/gl_test.h"
#include "render/colormap.h"
#include "render/offscreen.h"
#include "render/point_sprite_renderer.h"
#include "render/state_textures.h"
#include "support/test_support.h"

namespace nbody {
namespace {

using test::GlTest;

constexpr int kWidth = 256, kHeight = 64;
constexpr int kPositions = 21, kPixelsPerStep = 10;  // sprites 6 px wide: no two overlap
constexpr double kStepTime = 0.01, kHalfLife = 5 * kStepTime;

State bodyAt(glm::vec3 position) {
  State state;
  state.positionMass.emplace_back(position, 1.0f);
  state.velocity.emplace_back(2.0f, 0.0f, 0.0f, 0.0f);  // beyond the colour range: the top colour
  return state;
}

Camera frontCamera() { return test::frontCamera(5.0f); }

// Scene units per pixel at the camera's target.
float unitsPerPixel(const Camera& camera) {
  return 2.0f * camera.distance * std::tan(0.5f * glm::radians(camera.verticalFovDegrees)) /
         float(kHeight);
}

// Position k of the body: 10 pixels apart, centred on the picture.
glm::vec3 positionAt(int k) {
  return {float((k - kPositions / 2) * kPixelsPerStep) * unitsPerPixel(frontCamera()), 0.0f, 0.0f};
}
int columnAt(int k) { return kWidth / 2 + (k - kPositions / 2) * kPixelsPerStep; }

class TrailsTest : public GlTest {
 protected:
  void SetUp() override {
    GlTest::SetUp();
    if (HasFatalFailure()) return;
    renderer_.emplace();
    settings_.pointSize = 6.0f;
    settings_.brightness = 1.5f;
    settings_.trailHalfLife = float(kHalfLife);
  }

  Image draw(PointSpriteRenderer& renderer, const State& state, const RenderSettings& settings,
             double time) {
    UploadedStateTextures textures;
    textures.upload(state);
    return renderOffscreen({kWidth, kHeight},
                           [&] { renderer.draw(textures.view(), frontCamera(), settings, time); });
  }
  void addToTrails(const State& state, double time) {
    UploadedStateTextures textures;
    textures.upload(state);
    renderOffscreen({kWidth, kHeight}, [&] {
      renderer_->addToTrails(textures.view(), frontCamera(), settings_, time);
    });
  }
  // The body crosses the picture, one position per step; the last step is drawn.
  Image streak(bool drawEveryStep) {
    for (int k = 0; k + 1 < kPositions; ++k) {
      if (drawEveryStep)
        draw(*renderer_, bodyAt(positionAt(k)), settings_, k * kStepTime);
      else
        addToTrails(bodyAt(positionAt(k)), k * kStepTime);
    }
    return draw(*renderer_, bodyAt(positionAt(kPositions - 1)), settings_,
                (kPositions - 1) * kStepTime);
  }
  // What a renderer that never drew anything draws, without trails.
  Image freshPicture(const State& state) {
    PointSpriteRenderer fresh;
    RenderSettings off = settings_;
    off.trailHalfLife = 0.0f;
    return draw(fresh, state, off, 0.0);
  }
  // The brightest red (the top colour's brightest channel) near where position k is drawn.
  static int peakAt(const Image& image, int k) {
    int peak = 0;
    for (int y = kHeight / 2 - 2; y <= kHeight / 2 + 2; ++y)
      for (int x = columnAt(k) - 2; x <= columnAt(k) + 2; ++x)
        peak = std::max(peak, int(image.pixel(x, y)[0]));
    return peak;
  }

  std::optional<PointSpriteRenderer> renderer_;
  RenderSettings settings_;
};

TEST_F(TrailsTest, AStreakFadesAlongThePathByTheHalfLife) {
  const Image image = streak(false);
  // tone_map.frag shows light L as 255 (1 - e^-L): undo it at the head, then predict every point.
  const double headLight = -std::log(1.0 - peakAt(image, kPositions - 1) / 255.0);
  ASSERT_GT(headLight, 1.0) << "bright enough to measure the fading over four half-lives";
  int measured = 0;
  for (int k = 0; k + 1 < kPositions; ++k) {
    const double age = (kPositions - 1 - k) * kStepTime;
    const double expected = 255.0 * (1.0 - std::exp(-headLight * std::exp2(-age / kHalfLife)));
    EXPECT_NEAR(peakAt(image, k), expected, 2.0)
        << "position " << k << ", " << age / kHalfLife << " half-lives old";
    measured += expected > 10.0;
  }
  EXPECT_GE(measured, 15) << "most of the path is bright enough to measure";
  // Between the sprites the trail is dark: it is made of the light drawn, not smeared.
  EXPECT_EQ(image.pixel((columnAt(10) + columnAt(11)) / 2, kHeight / 2)[0], 0);
}

TEST_F(TrailsTest, LightAddedBetweenPicturesIsLightDrawnAtEveryStep) {
  const Image added = streak(false);
  renderer_.emplace();
  EXPECT_EQ(streak(true).rgba, added.rgba);
}

TEST_F(TrailsTest, NothingFadesWhileNoSimulatedTimePasses) {
  const Image first = streak(false);
  const State head = bodyAt(positionAt(kPositions - 1));
  for (int frame = 0; frame < 5; ++frame)
    EXPECT_EQ(draw(*renderer_, head, settings_, (kPositions - 1) * kStepTime).rgba, first.rgba)
        << frame;
}

TEST_F(TrailsTest, ABodyAtRestIsAsBrightAsWithoutTrails) {
  const State resting = bodyAt(glm::vec3(0.0f));
  Image image;
  for (int k = 0; k < 50; ++k) image = draw(*renderer_, resting, settings_, k * kStepTime);
  EXPECT_EQ(image.rgba, freshPicture(resting).rgba) << "the light is kept, not added up";
}

TEST_F(TrailsTest, TrailsOffOrTimeGoingBackDrawsWhatAFreshRendererDraws) {
  const State elsewhere = bodyAt(positionAt(3));
  streak(false);
  // Back to time 0 (a reset in the window): the trails start afresh.
  EXPECT_EQ(draw(*renderer_, elsewhere, settings_, 0.0).rgba, freshPicture(elsewhere).rgba);
  streak(false);
  RenderSettings off = settings_;
  off.trailHalfLife = 0.0f;
  EXPECT_EQ(draw(*renderer_, elsewhere, off, 1.0).rgba, freshPicture(elsewhere).rgba);
  // Without trails, nothing of an earlier picture stays.
  draw(*renderer_, bodyAt(positionAt(15)), off, 2.0);
  EXPECT_EQ(draw(*renderer_, elsewhere, off, 3.0).rgba, freshPicture(elsewhere).rgba);
}

TEST_F(TrailsTest, PutsBackTheBlendColour) {
  renderOffscreen({kWidth, kHeight}, [&] {
    glBlendColor(0.1f, 0.2f, 0.3f, 0.4f);
    UploadedStateTextures textures;
    for (int k = 0; k < 3; ++k) {  // the second and third pictures fade the trail
      textures.upload(bodyAt(positionAt(k)));
      renderer_->draw(textures.view(), frontCamera(), settings_, k * kStepTime);
    }
    GLfloat colour[4];
    glGetFloatv(GL_BLEND_COLOR, colour);
    EXPECT_EQ(std::vector<GLfloat>(colour, colour + 4),
              (std::vector<GLfloat>{0.1f, 0.2f, 0.3f, 0.4f}));
  });
}

}  // namespace
}  // namespace nbody
