// The projected density (--show density) on a headless context, against an independent sum on the
// CPU: each body projected through the camera's matrices, its kernel's radius scaled by its depth,
// Monaghan's 2-D cubic spline evaluated at every pixel's centre. Then the mass it conserves, the
// colours it maps to, hidden components, and the range fitted to a picture.

#include <cmath>

#include "gl/gl_test.h"
#include "render/colormap.h"
#include "render/density_pass.h"
#include "render/offscreen.h"
#include "render/point_sprite_renderer.h"
#include "render/state_textures.h"
#include "support/test_support.h"

namespace nbody {
namespace {

using test::GlTest;

constexpr double kPi = 3.14159265358979323846;
constexpr glm::ivec2 kSize{96, 80};

struct Body {
  glm::vec3 position;
  float mass;
  std::uint8_t component = kDefaultComponent;
};

State stateOf(const std::vector<Body>& bodies) {
  State state;
  for (const Body& body : bodies) {
    state.positionMass.emplace_back(body.position, body.mass);
    state.velocity.emplace_back(0.0f);
    state.id.push_back(state.id.size() + 1);
    state.component.push_back(body.component);
  }
  return state;
}

Camera frontCamera() { return test::frontCamera(6.0f); }

// Monaghan's M4 in 2-D with support h: 40 / (7 pi h^2) times this of q = r / h.
double cubicSpline(double q) {
  if (q >= 1.0) return 0.0;
  return q < 0.5 ? 1.0 - 6.0 * q * q + 6.0 * q * q * q : 2.0 * std::pow(1.0 - q, 3.0);
}

// The surface density at each pixel's centre (rows from the bottom, as GL reads them), summed on
// the CPU in double: the reference the GPU's picture is held against.
std::vector<double> densityOnTheCpu(const std::vector<Body>& bodies, const Camera& camera,
                                    float smoothing, std::uint32_t hidden = 0) {
  const glm::dmat4 projection(camera.projection(float(kSize.x) / float(kSize.y)));
  const glm::dmat4 viewProjection = projection * glm::dmat4(camera.view());
  const double pixelsPerUnit = 0.5 * kSize.y * projection[1][1];
  std::vector<double> density(std::size_t(kSize.x * kSize.y), 0.0);
  for (const Body& body : bodies) {
    if (hidden & (1u << body.component)) continue;
    const glm::dvec4 clip = viewProjection * glm::dvec4(glm::dvec3(body.position), 1.0);
    const glm::dvec2 centre((clip.x / clip.w + 1.0) / 2.0 * kSize.x,
                            (clip.y / clip.w + 1.0) / 2.0 * kSize.y);
    const double radiusPixels = smoothing * pixelsPerUnit / clip.w;
    for (int y = 0; y < kSize.y; ++y)
      for (int x = 0; x < kSize.x; ++x) {
        const double q = glm::length(glm::dvec2(x + 0.5, y + 0.5) - centre) / radiusPixels;
        density[std::size_t(y * kSize.x + x)] +=
            body.mass * 40.0 / (7.0 * kPi * smoothing * smoothing) * cubicSpline(q);
      }
  }
  return density;
}

class DensityTest : public GlTest {
 protected:
  // The GPU's density of `bodies`, as DensityPass adds it up (point sizes up to 200 pixels).
  std::vector<float> densityOnTheGpu(const std::vector<Body>& bodies, const Camera& camera) {
    UploadedStateTextures textures;
    textures.upload(stateOf(bodies));
    DensityPass pass;
    renderOffscreen(kSize, [&] {
      pass.splat(textures.view(), camera, settings_, kSize, {1.0f, 200.0f});
    });
    return pass.lastDensity();
  }

  RenderSettings settings_ = [] {
    RenderSettings settings;
    settings.density = true;
    settings.smoothing = 0.5f;
    return settings;
  }();
};

const std::vector<Body> kBodies = {
    {{0.0f, 0.0f, 0.0f}, 1.0f},
    {{0.3f, 0.1f, 0.0f}, 0.5f},
    {{-1.1f, 0.6f, 1.5f}, 2.0f},    // nearer: a larger kernel on the picture
    {{1.2f, -0.8f, -2.0f}, 0.25f},  // farther: a smaller one
    {{-0.7f, -0.9f, 0.4f}, 1.0f, 3}};

TEST_F(DensityTest, IsTheKernelSumOfEveryBodyAtItsDepth) {
  const std::vector<float> gpu = densityOnTheGpu(kBodies, frontCamera());
  const std::vector<double> cpu = densityOnTheCpu(kBodies, frontCamera(), settings_.smoothing);
  ASSERT_EQ(gpu.size(), cpu.size());
  double peak = 0.0;
  for (double value : cpu) peak = std::max(peak, value);
  ASSERT_GT(peak, 0.0);
  int lit = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    // Float32 sums and a point's square placed to a fraction of a pixel (the kernel's radius is
    // 10 to 20 pixels): 1% of the value, or 0.2% of the peak where a kernel's rim crosses a pixel.
    EXPECT_NEAR(gpu[i], cpu[i], 0.01 * cpu[i] + 0.002 * peak)
        << "pixel " << i % kSize.x << ", " << i / kSize.x;
    lit += cpu[i] > 0.0;
  }
  EXPECT_GT(lit, kSize.x * kSize.y / 8) << "the kernels cover a good part of the picture";
}

TEST_F(DensityTest, AddsUpToTheMassOfBodiesAtTheTarget) {
  // At the camera's target every pixel covers the same area: the density times it sums to the mass.
  const std::vector<Body> bodies = {
      {{0.0f, 0.0f, 0.0f}, 1.0f}, {{0.9f, 0.4f, 0.0f}, 3.0f}, {{-1.2f, -0.5f, 0.0f}, 0.5f}};
  const Camera camera = frontCamera();
  const std::vector<float> gpu = densityOnTheGpu(bodies, camera);
  const double pixelsPerUnit =
      0.5 * kSize.y * double(camera.projection(1.0f)[1][1]) / camera.distance;
  double mass = 0.0;
  for (float value : gpu) mass += double(value) / (pixelsPerUnit * pixelsPerUnit);
  EXPECT_NEAR(mass, 4.5, 4.5 * 0.01);
}

TEST_F(DensityTest, KernelsSmallerThanAPixelStillAddUpToTheirMass) {
  // A smoothing far below a pixel: the pass widens each kernel to a few pixels (from the renderer's
  // smallest point size of 2), wherever in its pixel the body lies.
  settings_.smoothing = 0.001f;
  std::vector<Body> bodies;
  for (int k = 0; k < 40; ++k)
    bodies.push_back({{-1.5f + 0.0731f * float(k), 0.9f - 0.0457f * float(k), 0.0f},
                      1.0f + 0.25f * float(k % 4)});
  double mass = 0.0;
  for (const Body& body : bodies) mass += body.mass;
  UploadedStateTextures textures;
  textures.upload(stateOf(bodies));
  DensityPass pass;
  const Camera camera = frontCamera();
  renderOffscreen(kSize, [&] {
    pass.splat(textures.view(), camera, settings_, kSize, {2.0f, 200.0f});
  });
  const double pixelsPerUnit =
      0.5 * kSize.y * double(camera.projection(1.0f)[1][1]) / camera.distance;
  double added = 0.0;
  for (float value : pass.lastDensity()) added += double(value) / (pixelsPerUnit * pixelsPerUnit);
  EXPECT_NEAR(added, mass, mass * 0.01);
  // One body at a time, at eight places within its pixel: each keeps its own mass, not only the
  // sum.
  for (int k = 0; k < 8; ++k) {
    const float offset =
        float(k) / 8.0f / float(pixelsPerUnit);  // an eighth of a pixel further each time
    textures.upload(stateOf({{{0.2f + offset, 0.1f + 0.5f * offset, 0.0f}, 1.0f}}));
    renderOffscreen(kSize, [&] {
      pass.splat(textures.view(), camera, settings_, kSize, {2.0f, 200.0f});
    });
    double one = 0.0;
    for (float value : pass.lastDensity()) one += double(value) / (pixelsPerUnit * pixelsPerUnit);
    EXPECT_NEAR(one, 1.0, 0.01) << "offset " << k << "/8 of a pixel";
  }
}

TEST_F(DensityTest, AHiddenComponentAddsNothing) {
  settings_.hiddenComponents = 1u << 3;
  const std::vector<float> gpu = densityOnTheGpu(kBodies, frontCamera());
  const std::vector<double> cpu =
      densityOnTheCpu(kBodies, frontCamera(), settings_.smoothing, 1u << 3);
  const std::vector<double> all = densityOnTheCpu(kBodies, frontCamera(), settings_.smoothing);
  double peak = 0.0, missing = 0.0;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    peak = std::max(peak, cpu[i]);
    missing = std::max(missing, all[i] - cpu[i]);
  }
  ASSERT_GT(missing, 0.1 * peak) << "the hidden body must matter";
  for (std::size_t i = 0; i < cpu.size(); ++i)
    EXPECT_NEAR(gpu[i], cpu[i], 0.01 * cpu[i] + 0.002 * peak);
}

TEST_F(DensityTest, MapsTheDensityThroughTheColormapOnALogScale) {
  settings_.colormap = "viridis";
  settings_.colorRange = {0.05f, 2.0f};
  settings_.background = {0.0f, 0.0f, 0.2f};
  const std::vector<Body> bodies = {{{0.0f, 0.0f, 0.0f}, 1.0f}};
  UploadedStateTextures textures;
  textures.upload(stateOf(bodies));
  PointSpriteRenderer renderer;
  const Image image =
      renderOffscreen(kSize, [&] { renderer.draw(textures.view(), frontCamera(), settings_); });
  const std::vector<double> cpu = densityOnTheCpu(bodies, frontCamera(), settings_.smoothing);
  const Colormap& viridis = *findColormap("viridis");
  int checked = 0;
  for (int y = 0; y < kSize.y; ++y)
    for (int x = 0; x < kSize.x; ++x) {
      const double density =
          cpu[std::size_t((kSize.y - 1 - y) * kSize.x + x)];  // images run from the top
      const std::uint8_t* p = image.pixel(x, y);
      if (density <= 0.0) {
        EXPECT_EQ(p[2], 51) << "background where no kernel reaches";
        continue;
      }
      if (density < 0.06 || std::abs(density - 2.0) < 0.05)
        continue;  // the fade and the clamp: steep there
      const double t = std::log(density / 0.05) / std::log(2.0 / 0.05);
      const glm::vec3 expected = sampleColormap(viridis, float(std::min(t, 1.0))) * 255.0f;
      for (int c = 0; c < 3; ++c)
        EXPECT_NEAR(p[c], expected[c], 3.0) << x << ", " << y << " channel " << c;
      ++checked;
    }
  EXPECT_GT(checked, 120);
}

TEST(DensityRange, SpansTheLitPixelsPercentiles) {
  std::vector<float> density(1000, 0.0f);  // unlit pixels do not count
  for (int i = 0; i < 1000; ++i) density.push_back(float(i + 1));
  const glm::vec2 range = densityRangeOf(density);
  EXPECT_FLOAT_EQ(range.x, 300.0f);
  EXPECT_FLOAT_EQ(range.y, 999.0f);
  EXPECT_EQ(densityRangeOf(std::vector<float>(50, 0.0f)), glm::vec2(0.1f, 1.0f)) << "nothing lit";
  EXPECT_EQ(densityRangeOf(std::vector<float>(50, 4.0f)), glm::vec2(0.4f, 4.0f)) << "all alike";
}

}  // namespace
}  // namespace nbody
