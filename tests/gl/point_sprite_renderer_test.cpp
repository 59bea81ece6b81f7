// The point-sprite renderer on a headless context: what a sprite looks like, how the light adds up,
// the colormap, the size with distance, the viewport, the GL state it leaves behind, and that it
// draws any engine's state textures alike.

#include <cmath>
#include <cstdlib>
#include <optional>

#include "engines/fragment_engine.h"
#include "gl/gl_test.h"
#include "physics/method.h"
#include "physics/scenes.h"
#include "render/body_field.h"
#include "render/colormap.h"
#include "render/image_compare.h"
#include "render/offscreen.h"
#include "render/point_sprite_renderer.h"
#include "render/state_textures.h"
#include "support/test_support.h"

namespace nbody {
namespace {

using test::frontCamera;
using test::GlTest;

constexpr int kSize = 64;

State bodiesAt(std::vector<glm::vec3> positions, glm::vec3 velocity = glm::vec3(0.0f),
               float mass = 1.0f) {
  State state;
  for (glm::vec3 p : positions) {
    state.positionMass.emplace_back(p, mass);
    state.velocity.emplace_back(velocity, 0.0f);
  }
  return state;
}

class PointSpriteRendererTest : public GlTest {
 protected:
  void SetUp() override {
    GlTest::SetUp();
    if (!HasFatalFailure()) renderer_.emplace();  // after the context exists
  }

  Image draw(const State& state, const Camera& camera, const RenderSettings& settings,
             glm::ivec2 size = {kSize, kSize}) {
    UploadedStateTextures textures;
    textures.upload(state);
    return renderOffscreen(size, [&] { renderer_->draw(textures.view(), camera, settings); });
  }
  static int pixelsBrighterThan(const Image& image, int level) {
    int count = 0;
    for (int y = 0; y < image.height; ++y)
      for (int x = 0; x < image.width; ++x) count += image.pixel(x, y)[0] > level;
    return count;
  }
  // What tone_map.frag makes of `light` on a black background, in 8 bits.
  static double toneMapped(double light) { return 255.0 * (1.0 - std::exp(-light)); }

  std::optional<PointSpriteRenderer> renderer_;
  RenderSettings settings_;  // fire, by speed, range 0..1, black background
};

TEST_F(PointSpriteRendererTest, ALoneBodyIsARoundSoftSpotWithTheColormapsColour) {
  settings_.pointSize = 16.0f;
  const Image image =
      draw(bodiesAt({glm::vec3(0.0f)}, {2.0f, 0.0f, 0.0f}), frontCamera(5.0f), settings_);
  // The sprite is centred on the corner shared by pixels 31 and 32: the picture is symmetric.
  for (int k = 0; k < 32; ++k)
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(image.pixel(32 + k, 32)[c], image.pixel(31 - k, 32)[c], 1) << k;
      EXPECT_NEAR(image.pixel(32, 32 + k)[c], image.pixel(32, 31 - k)[c], 1) << k;
      EXPECT_NEAR(image.pixel(32 + k, 32)[c], image.pixel(32, 32 + k)[c], 1) << k;  // round
    }
  // Speed 2 is beyond the range, so the colour is the colormap's last; the pixel next to the centre
  // is 1/16 of the radius off it in x and y, where the falloff weighs (e^-4r^2 - e^-4)/(1 - e^-4).
  const glm::vec3 top = findColormap("fire")->anchors.back();
  const double r2 = 2.0 * (0.5 / 8.0) * (0.5 / 8.0);
  const double weight = (std::exp(-4.0 * r2) - std::exp(-4.0)) / (1.0 - std::exp(-4.0));
  for (int c = 0; c < 3; ++c)
    EXPECT_NEAR(image.pixel(32, 32)[c], toneMapped(top[c] * weight), 2.0) << c;
  // Softly falling off, and nothing beyond the 8-pixel radius.
  EXPECT_GT(image.pixel(32, 32)[2], image.pixel(35, 32)[2]);
  EXPECT_GT(image.pixel(35, 32)[2], image.pixel(38, 32)[2]);
  EXPECT_EQ(image.pixel(32 + 9, 32)[0], 0);
  EXPECT_EQ(image.pixel(32, 32 - 10)[0], 0);
  EXPECT_LE(pixelsBrighterThan(image, 0), int(3.1416 * 8 * 8) + 8);
}

TEST_F(PointSpriteRendererTest, LightAddsUpWithoutClipping) {
  settings_.pointSize = 16.0f;
  settings_.colormap = "ice";
  const Camera camera = frontCamera(5.0f);
  const Image one = draw(bodiesAt({glm::vec3(0.0f)}), camera, settings_);
  const Image five = draw(bodiesAt(std::vector<glm::vec3>(5, glm::vec3(0.0f))), camera, settings_);
  const Image fifty =
      draw(bodiesAt(std::vector<glm::vec3>(50, glm::vec3(0.0f))), camera, settings_);
  // Speed 0: the colormap's first colour. The blue channel of one body, then of five bodies.
  const double light = findColormap("ice")->anchors.front().b * 0.969;  // weight at pixel (32, 32)
  EXPECT_NEAR(one.pixel(32, 32)[2], toneMapped(light), 2.0);
  EXPECT_NEAR(five.pixel(32, 32)[2], toneMapped(5.0 * light), 2.0);
  EXPECT_GT(fifty.pixel(32, 32)[0], five.pixel(32, 32)[0]);  // still brighter, never wrapping round
}

TEST_F(PointSpriteRendererTest, BrightnessScalesTheLight) {
  settings_.pointSize = 16.0f;
  const Camera camera = frontCamera(5.0f);
  const Image normal = draw(bodiesAt({glm::vec3(0.0f)}), camera, settings_);
  settings_.brightness = 3.0f;
  const Image bright = draw(bodiesAt({glm::vec3(0.0f)}), camera, settings_);
  const double light = findColormap("fire")->anchors.front().r * 0.969;
  EXPECT_NEAR(normal.pixel(32, 32)[0], toneMapped(light), 2.0);
  EXPECT_NEAR(bright.pixel(32, 32)[0], toneMapped(3.0 * light), 2.0);
}

TEST_F(PointSpriteRendererTest, ColoursBySpeedOrByMassThroughTheColormap) {
  settings_.pointSize = 16.0f;
  settings_.colormap = "viridis";
  settings_.colorRange = {0.0f, 2.0f};
  const Camera camera = frontCamera(5.0f);
  const Colormap& viridis = *findColormap("viridis");
  // A slow heavy body: by speed it takes the low end, by mass (2 of 0..2) the high end.
  const State slowHeavy = bodiesAt({glm::vec3(0.0f)}, glm::vec3(0.0f), 2.0f);
  for (ColorBy colorBy : {ColorBy::Speed, ColorBy::Mass}) {
    settings_.colorBy = colorBy;
    const glm::vec3 expected =
        colorBy == ColorBy::Speed ? viridis.anchors.front() : viridis.anchors.back();
    const Image image = draw(slowHeavy, camera, settings_);
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(image.pixel(32, 32)[c], toneMapped(expected[c] * 0.969), 2.0)
          << colorByName(colorBy) << c;
  }
  // Half way along the range: the colormap's middle.
  settings_.colorBy = ColorBy::Speed;
  const Image middle = draw(bodiesAt({glm::vec3(0.0f)}, {0.0f, 1.0f, 0.0f}), camera, settings_);
  const glm::vec3 expected = sampleColormap(viridis, 0.5f);
  for (int c = 0; c < 3; ++c)
    EXPECT_NEAR(middle.pixel(32, 32)[c], toneMapped(expected[c] * 0.969), 2.0) << c;
}

// By component, each body takes its component's colour whatever its speed and mass; on a log scale
// the colormap's middle is the range's geometric middle.
TEST_F(PointSpriteRendererTest, ColoursByComponentOrOnALogScale) {
  settings_.pointSize = 16.0f;
  const Camera camera = frontCamera(5.0f);
  settings_.colorBy = ColorBy::Component;
  settings_.componentColors[3] = {0.25f, 0.5f, 1.0f};
  for (const std::uint8_t component : {std::uint8_t(0), std::uint8_t(3), std::uint8_t(5)}) {
    State state = bodiesAt({glm::vec3(0.0f)}, {3.0f, 0.0f, 0.0f}, 7.0f);
    state.component = {component};
    const Image image = draw(state, camera, settings_);
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(image.pixel(32, 32)[c],
                  toneMapped(settings_.componentColors[component][c] * 0.969), 2.0)
          << int(component) << " " << c;
  }
  settings_.colorBy = ColorBy::Speed;
  settings_.colormap = "viridis";
  settings_.logScale = true;
  settings_.colorRange = {0.1f, 10.0f};
  const Image middle = draw(bodiesAt({glm::vec3(0.0f)}, {0.0f, 1.0f, 0.0f}), camera, settings_);
  const glm::vec3 expected = sampleColormap(*findColormap("viridis"), 0.5f);
  for (int c = 0; c < 3; ++c)
    EXPECT_NEAR(middle.pixel(32, 32)[c], toneMapped(expected[c] * 0.969), 2.0) << c;
  settings_.colorRange = {0.0f, 10.0f};
  EXPECT_THROW(draw(bodiesAt({glm::vec3(0.0f)}), camera, settings_), std::invalid_argument);
}

// By radius and by L_z, measured from the centre the settings give, where it has moved by the time
// of the picture: a body at the origin, 1 from the centre, turning one way or the other about it.
TEST_F(PointSpriteRendererTest, ColoursByRadiusAndAngularMomentumFromTheMovingCentre) {
  settings_.pointSize = 16.0f;
  settings_.colormap = "viridis";
  settings_.centre = {{-3.0f, -2.0f, 0.0f}, {1.0f, 1.0f, 0.0f}, 0.5};  // at time 2.5: (-1, 0, 0)
  const Camera camera = frontCamera(5.0f);
  const auto drawnAt = [&](const State& state, double time) {
    UploadedStateTextures textures;
    textures.upload(state);
    return renderOffscreen({kSize, kSize},
                           [&] { renderer_->draw(textures.view(), camera, settings_, time); });
  };
  const auto expectColour = [](const Image& image, float along, const std::string& what) {
    const glm::vec3 expected = sampleColormap(*findColormap("viridis"), along);
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(image.pixel(32, 32)[c], toneMapped(expected[c] * 0.969), 2.0) << what << c;
  };
  settings_.colorBy = ColorBy::Radius;
  settings_.colorRange = {0.0f, 4.0f};
  expectColour(drawnAt(bodiesAt({glm::vec3(0.0f)}), 2.5), 0.25f, "radius 1 of 0..4 ");
  expectColour(drawnAt(bodiesAt({glm::vec3(0.0f)}), 0.5), std::sqrt(13.0f) / 4.0f,
               "radius 13^0.5 of 0..4 ");
  settings_.colorBy = ColorBy::AngularMomentum;
  settings_.colorRange = {-4.0f, 4.0f};
  // The centre moves at (1, 1, 0): relative velocity (0, +-2, 0) at r = (1, 0, 0), L_z = +-2 (3 and
  // -1 if the centre's velocity were not taken off).
  expectColour(drawnAt(bodiesAt({glm::vec3(0.0f)}, {1.0f, 3.0f, 0.0f}), 2.5), 0.75f,
               "L_z 2 of -4..4 ");
  expectColour(drawnAt(bodiesAt({glm::vec3(0.0f)}, {1.0f, -1.0f, 0.0f}), 2.5), 0.25f,
               "L_z -2 of -4..4 ");
}

// Energy and density colours read each body's value from a BodyField measured on the state: a
// body at the origin moving at (0, 1, 0), and a heavy one (mass 100) at (100, 0, 0) off
// the picture: the first's potential is -100 / 100, its specific energy 0.5 - 1 = -0.5, the
// second's potential -1 / 100 (body order kept); both share the root cell (two bodies, under 32),
// mass 101 over 100^3. Without the field the renderer refuses to colour by them.
TEST_F(PointSpriteRendererTest, ColoursByEnergyAndDensityFromTheBodiesField) {
  settings_.pointSize = 16.0f;
  settings_.colormap = "viridis";
  settings_.centre = {};  // the origin, at rest
  State state = bodiesAt({glm::vec3(0.0f), glm::vec3(100.0f, 0.0f, 0.0f)});
  state.velocity[0] = glm::vec4(0.0f, 1.0f, 0.0f, 0.0f);
  state.positionMass[1].w = 100.0f;
  UploadedStateTextures textures;
  textures.upload(state);
  StepParams params;
  params.softening = 1e-3;
  BodyField field;
  const Camera camera = frontCamera(5.0f);
  const auto expectColour = [&](float along, const std::string& what) {
    const Image image = renderOffscreen({kSize, kSize}, [&] {
      renderer_->draw(field.attachedTo(textures.view()), camera, settings_);
    });
    const glm::vec3 expected = sampleColormap(*findColormap("viridis"), along);
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(image.pixel(32, 32)[c], toneMapped(expected[c] * 0.969), 2.0) << what << c;
  };
  settings_.colorBy = ColorBy::Energy;
  EXPECT_THROW(
      renderOffscreen({kSize, kSize}, [&] { renderer_->draw(textures.view(), camera, settings_); }),
      std::logic_error);
  field.measure(textures.view(), ColorBy::Energy, params);
  const std::vector<float> potentials = field.values();
  ASSERT_EQ(potentials.size(), 2u);
  EXPECT_NEAR(potentials[0], -1.0f, 1e-6f);
  EXPECT_NEAR(potentials[1], -0.01f, 1e-8f);
  settings_.colorRange = {-1.0f, 0.0f};
  expectColour(0.5f, "energy -0.5 of -1..0 ");
  settings_.colorBy = ColorBy::Density;
  field.measure(textures.view(), ColorBy::Density, params);
  for (const float density : field.values())
    EXPECT_FLOAT_EQ(density, 101.0f / 1e6f);  // GLSL's division: within ulps
  settings_.colorRange = {0.0f, 4.04e-4f};
  expectColour(0.25f, "density 1.01e-4 of 0..4.04e-4 ");
}

// A hidden component adds no light: the picture is, bit for bit, that of the state without it,
// bodies of the shown component drawn over and beside the hidden ones.
TEST_F(PointSpriteRendererTest, AHiddenComponentAddsNoLight) {
  settings_.pointSize = 12.0f;
  const Camera camera = frontCamera(5.0f);
  const std::vector<glm::vec3> positions{{0.0f, 0.0f, 0.0f},
                                         {0.3f, 0.1f, 0.0f},
                                         {0.0f, 0.0f, 0.0f},
                                         {-0.4f, -0.2f, 0.5f},
                                         {0.3f, 0.1f, 0.0f}};
  State all = bodiesAt(positions, {0.5f, 0.0f, 0.0f});
  all.component = {1, 2, 2, 1, 4};
  State shownOnly = bodiesAt({positions[0], positions[3]}, {0.5f, 0.0f, 0.0f});
  shownOnly.component = {1, 1};
  settings_.hiddenComponents = (1u << 2) | (1u << 4);
  const Image hidden = draw(all, camera, settings_);
  const Image without = draw(shownOnly, camera, settings_);
  EXPECT_TRUE(hidden.rgba == without.rgba);
  settings_.hiddenComponents = 0;
  EXPECT_FALSE(draw(all, camera, settings_).rgba ==
               without.rgba);  // the hidden ones do show otherwise
  settings_.hiddenComponents = (1u << 1) | (1u << 2) | (1u << 4);
  EXPECT_EQ(pixelsBrighterThan(draw(all, camera, settings_), 0), 0);
}

TEST_F(PointSpriteRendererTest, NearerBodiesAreLargerAndFarOnesDimmerButStillThere) {
  settings_.pointSize = 8.0f;
  settings_.brightness = 5.0f;
  const Image atTarget = draw(bodiesAt({glm::vec3(0.0f)}), frontCamera(4.0f), settings_);
  const Image halfWay = draw(bodiesAt({glm::vec3(0.0f, 0.0f, 2.0f)}), frontCamera(4.0f), settings_);
  const double areaRatio =
      double(pixelsBrighterThan(halfWay, 0)) / double(pixelsBrighterThan(atTarget, 0));
  EXPECT_NEAR(areaRatio, 4.0, 1.0) << "twice as near: twice the diameter";
  // Ten times farther than the target: 0.8 px wanted, drawn at the smallest size and dimmed.
  const Image far = draw(bodiesAt({glm::vec3(0.0f, 0.0f, -36.0f)}), frontCamera(4.0f), settings_);
  EXPECT_GT(pixelsBrighterThan(far, 0), 0);
  EXPECT_LT(far.pixel(32, 32)[0], atTarget.pixel(32, 32)[0] / 4);
}

TEST_F(PointSpriteRendererTest, PaintsTheBackgroundAndOnlyInsideTheViewport) {
  settings_.pointSize = 4.0f;
  settings_.background = {0.2f, 0.4f, 0.6f};
  UploadedStateTextures textures;
  textures.upload(bodiesAt({glm::vec3(0.0f)}));
  const Image image = renderOffscreen({kSize, kSize}, [&] {
    glClearColor(1.0f, 0.0f, 1.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glViewport(8, 16, 32, 24);  // x 8..39, y 16..39 counted from the bottom
    renderer_->draw(textures.view(), frontCamera(5.0f), settings_);
  });
  const auto isMagenta = [&](int x, int y) {
    const std::uint8_t* p = image.pixel(x, y);
    return p[0] == 255 && p[1] == 0 && p[2] == 255;
  };
  EXPECT_TRUE(isMagenta(7, 40)) << "left of the viewport";
  EXPECT_TRUE(isMagenta(40, 40)) << "right of it";
  EXPECT_TRUE(isMagenta(20, kSize - 1 - 40)) << "above it";
  EXPECT_TRUE(isMagenta(20, kSize - 1 - 15)) << "below it";
  const std::uint8_t* background = image.pixel(9, kSize - 1 - 17);
  EXPECT_NEAR(background[0], 51, 1);
  EXPECT_NEAR(background[1], 102, 1);
  EXPECT_NEAR(background[2], 153, 1);
  // The body at the target is in the middle of the viewport, not of the framebuffer.
  EXPECT_GT(image.pixel(24, kSize - 1 - 28)[0], 51 + 30);
}

TEST_F(PointSpriteRendererTest, PutsBackTheGlStateItChanges) {
  UploadedStateTextures textures;
  textures.upload(bodiesAt({glm::vec3(0.0f)}));
  gl::Texture unrelated = gl::Texture::create();
  glTextureStorage2D(unrelated.id(), 1, GL_RGBA8, 4, 4);
  gl::VertexArray vertexArray = gl::VertexArray::create();
  const auto getInteger = [](GLenum name) {
    GLint value = 0;
    glGetIntegerv(name, &value);
    return value;
  };
  renderOffscreen({kSize, kSize}, [&] {
    glViewport(3, 4, 50, 40);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
    glBlendEquation(GL_FUNC_REVERSE_SUBTRACT);
    glBindVertexArray(vertexArray.id());
    glBindTextureUnit(0, unrelated.id());
    glActiveTexture(GL_TEXTURE3);
    glClearColor(0.25f, 0.5f, 0.75f, 1.0f);
    const GLint framebuffer = getInteger(GL_DRAW_FRAMEBUFFER_BINDING);

    renderer_->draw(textures.view(), frontCamera(5.0f), settings_);

    GLint viewport[4];
    glGetIntegerv(GL_VIEWPORT, viewport);
    EXPECT_EQ(std::vector<GLint>(viewport, viewport + 4), (std::vector<GLint>{3, 4, 50, 40}));
    EXPECT_TRUE(glIsEnabled(GL_DEPTH_TEST));
    EXPECT_TRUE(glIsEnabled(GL_BLEND));
    EXPECT_FALSE(glIsEnabled(GL_PROGRAM_POINT_SIZE));
    EXPECT_EQ(getInteger(GL_BLEND_SRC_RGB), GL_SRC_ALPHA);
    EXPECT_EQ(getInteger(GL_BLEND_DST_RGB), GL_ONE_MINUS_SRC_ALPHA);
    EXPECT_EQ(getInteger(GL_BLEND_SRC_ALPHA), GL_ZERO);
    EXPECT_EQ(getInteger(GL_BLEND_EQUATION_RGB), GL_FUNC_REVERSE_SUBTRACT);
    EXPECT_EQ(getInteger(GL_DRAW_FRAMEBUFFER_BINDING), framebuffer);
    EXPECT_EQ(getInteger(GL_CURRENT_PROGRAM), 0);
    EXPECT_EQ(getInteger(GL_VERTEX_ARRAY_BINDING), GLint(vertexArray.id()));
    EXPECT_EQ(getInteger(GL_ACTIVE_TEXTURE), GL_TEXTURE3);
    glActiveTexture(GL_TEXTURE0);
    EXPECT_EQ(getInteger(GL_TEXTURE_BINDING_2D), GLint(unrelated.id()));
    GLfloat clear[4];
    glGetFloatv(GL_COLOR_CLEAR_VALUE, clear);
    EXPECT_EQ(clear[2], 0.75f);
  });  // renderOffscreen puts back what this changed
}

TEST_F(PointSpriteRendererTest, DrawsTheFragmentEnginesTexturesLikeUploadedOnesAndNoPadding) {
  // 7 bodies: a 3 x 3 texture with two padding texels at the origin, where no body is and where
  // the camera looks. A drawn padding texel would light the middle of the picture.
  State state = findScene("uniform-sphere")->generate(7, 5);
  for (glm::vec4& p : state.positionMass)
    p.x += p.x < 0.0f ? -1.0f : 1.0f;  // off the picture's middle
  FragmentEngine engine;
  engine.upload(state);
  UploadedStateTextures uploaded;
  uploaded.upload(state);
  const Camera camera = frontCamera(6.0f);
  settings_.pointSize = 6.0f;
  const Image fromEngine = renderOffscreen(
      {kSize, kSize}, [&] { renderer_->draw(*engine.gpuState(), camera, settings_); });
  const Image fromUpload =
      renderOffscreen({kSize, kSize}, [&] { renderer_->draw(uploaded.view(), camera, settings_); });
  EXPECT_EQ(fromEngine.rgba, fromUpload.rgba);
  EXPECT_GT(pixelsBrighterThan(fromEngine, 0), 7 * 9);
  for (int y = 30; y < 34; ++y)
    for (int x = 30; x < 34; ++x) EXPECT_EQ(fromEngine.pixel(x, y)[0], 0) << x << ", " << y;
}

// The window after an engine switch: the old engine stepped last and was destroyed with whatever
// it left bound (its program, vertex array). Drawing then must cause no GL error: restoring the
// freed program was one on NVIDIA, and on Mesa too when the tests share one process.
TEST_F(PointSpriteRendererTest, DrawsAfterTheEngineThatSteppedLastIsDestroyed) {
  const State state = findScene("plummer")->generate(64, 1);
  settings_.pointSize = 6.0f;
  for (const std::string& engineName : test::gpuEngineNames()) {
    {
      const std::unique_ptr<Engine> engine = test::makeEngine(engineName);
      engine->upload(state);
      engine->step(*findMethod("rk2"), StepParams{});
    }
    const Image image = draw(state, frontCamera(6.0f), settings_);
    EXPECT_GT(pixelsBrighterThan(image, 0), 64) << "after the " << engineName << " engine";
    for (const std::string& error : gl::takeDebugErrors())
      ADD_FAILURE() << "after the " << engineName << " engine: " << error;
  }
}

TEST_F(PointSpriteRendererTest, RefusesAnUnknownColormapOrAnEmptyRange) {
  UploadedStateTextures textures;
  textures.upload(bodiesAt({glm::vec3(0.0f)}));
  settings_.colormap = "jet";
  EXPECT_THROW(renderer_->draw(textures.view(), frontCamera(5.0f), settings_),
               std::invalid_argument);
  settings_.colormap = "fire";
  settings_.colorRange = {1.0f, 1.0f};
  EXPECT_THROW(renderer_->draw(textures.view(), frontCamera(5.0f), settings_),
               std::invalid_argument);
}

// A Plummer sphere seen by `camera` in a picture of `size`, with a dozen bodies just in front of
// the camera, whose sprites are too wide for one invocation of the splat (more than 16 pixels
// across: its large sprites). Only bodies whose centre lies well inside the picture: a point whose
// centre lies outside is not drawn, where the splat draws the part of its sprite inside.
State crowdWithSomeNearTheCamera(std::size_t bodies, const Camera& camera, glm::ivec2 size) {
  State state = findScene("plummer")->generate(bodies, 7);
  for (std::size_t k = 0; k < 12; ++k) {
    glm::vec4& body = state.positionMass[k * 97];
    body = glm::vec4(0.12f * float(k % 4) - 0.18f, 0.1f * float(k / 4) - 0.1f, 2.2f, body.w);
  }
  const glm::mat4 toClip = camera.projection(float(size.x) / float(size.y)) * camera.view();
  State inside;
  for (std::size_t i = 0; i < state.size(); ++i) {
    const glm::vec4 clip = toClip * glm::vec4(glm::vec3(state.positionMass[i]), 1.0f);
    if (std::abs(clip.x) > 0.8f * clip.w || std::abs(clip.y) > 0.8f * clip.w) continue;
    inside.positionMass.push_back(state.positionMass[i]);
    inside.velocity.push_back(state.velocity[i]);
  }
  return inside;
}

// The splat adds up the light the points blend, of the same sprites: small and large ones, each
// kind of colour, a hidden component. Where they differ is the points' half floats, which round
// at every blend into the crowded core.
TEST_F(PointSpriteRendererTest, TheSplatDrawsWhatThePointsDraw) {
  const glm::ivec2 size{160, 120};
  State state = crowdWithSomeNearTheCamera(4099, frontCamera(3.0f), size);
  state.component.assign(state.size(), 0);
  for (std::size_t i = 0; i < state.size(); ++i) state.component[i] = std::uint8_t(i % 3);
  PointSpriteRenderer points(SpriteDrawing::points);
  settings_.pointSize = 6.0f;
  settings_.colorRange = {0.0f, 0.8f};
  for (int variant = 0; variant < 3; ++variant) {
    RenderSettings settings = settings_;
    if (variant == 1) settings.colorBy = ColorBy::Component, settings.hiddenComponents = 0b10;
    if (variant == 2) settings.logScale = true, settings.colorRange = {0.05f, 1.0f};
    const Image splatted = draw(state, frontCamera(3.0f), settings, size);
    UploadedStateTextures textures;
    textures.upload(state);
    const Image pointed =
        renderOffscreen(size, [&] { points.draw(textures.view(), frontCamera(3.0f), settings); });
    const ImageDifference difference = compareImages(pointed, splatted, 2);
    std::printf("variant %d: largest difference %d, mean %.3f, %zu pixels beyond 2\n", variant,
                difference.maxDelta, difference.meanDelta, difference.badPixels);
    EXPECT_LE(difference.maxDelta, 3) << variant;
    EXPECT_LE(difference.badFraction(), 0.002) << variant;
    EXPECT_GT(pixelsBrighterThan(splatted, 100), 400) << variant;  // it drew the sprites
  }
}

// The points, the sprites of a renderer without compute shaders (WebGL2's, macOS's), drawn at the
// GL 4.1 / ES 3.0 subset (docs/development.md): objects edited while bound, and programs built as
// GLSL 4.10 and ES 3.00 (Mesa holds each to its version).
// 4.10 draws the bytes of 4.50; ES 3.00 differs by a level of 255 at most (llvmpipe rounds some
// ES arithmetic otherwise: 5% of this picture's pixels).
TEST_F(PointSpriteRendererTest, ThePointsDrawInGlsl410AndEs300AsIn450) {
  const glm::ivec2 size{160, 120};
  const State state = crowdWithSomeNearTheCamera(4099, frontCamera(3.0f), size);
  UploadedStateTextures textures;
  textures.upload(state);
  settings_.pointSize = 6.0f;
  const auto drawIn = [&](const char* dialect) {
    const test::GlTargetSet set(dialect);
    PointSpriteRenderer points(SpriteDrawing::points);
    return renderOffscreen(size,
                           [&] { points.draw(textures.view(), frontCamera(3.0f), settings_); });
  };
  const Image reference = drawIn("450");
  EXPECT_GT(pixelsBrighterThan(reference, 100), 400);  // it drew the sprites
  for (const auto& [dialect, levels] : {std::pair{"410", 0}, std::pair{"300es", 1}}) {
    const ImageDifference difference = compareImages(drawIn(dialect), reference, levels);
    EXPECT_EQ(difference.badPixels, 0u) << dialect << ": largest difference " << difference.maxDelta
                                        << ", mean " << difference.meanDelta;
  }
}

// The splat's sums are exact: the bodies in another order give the same bits.
TEST_F(PointSpriteRendererTest, TheSplatIsTheSameBitsInAnyOrderOfTheBodies) {
  const glm::ivec2 size{160, 120};
  const State state = crowdWithSomeNearTheCamera(4099, frontCamera(3.0f), size);
  State reversed;
  for (std::size_t i = state.size(); i-- > 0;) {
    reversed.positionMass.push_back(state.positionMass[i]);
    reversed.velocity.push_back(state.velocity[i]);
  }
  settings_.pointSize = 6.0f;
  const Image forward = draw(state, frontCamera(3.0f), settings_, size);
  const Image backward = draw(reversed, frontCamera(3.0f), settings_, size);
  EXPECT_EQ(compareImages(forward, backward, 0).maxDelta, 0);
  EXPECT_EQ(forward.rgba, backward.rgba);
}

}  // namespace
}  // namespace nbody
