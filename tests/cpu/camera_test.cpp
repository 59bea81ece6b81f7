// The orbit camera, its placement from --camera, and the bounding sphere it frames.

#include <cmath>

#include <gtest/gtest.h>
#include <glm/geometric.hpp>
#include <glm/trigonometric.hpp>

#include "app/run/render_options.h"
#include "physics/scenes.h"
#include "render/camera.h"

namespace nbody {
namespace {

constexpr float kClose = 1e-5f;

void expectNear(glm::vec3 actual, glm::vec3 expected, float tolerance = kClose) {
  EXPECT_NEAR(actual.x, expected.x, tolerance);
  EXPECT_NEAR(actual.y, expected.y, tolerance);
  EXPECT_NEAR(actual.z, expected.z, tolerance);
}

// Where a point lands in normalised device coordinates.
glm::vec3 project(const Camera& camera, float aspect, glm::vec3 point) {
  const glm::vec4 clip = camera.projection(aspect) * camera.view() * glm::vec4(point, 1.0f);
  return glm::vec3(clip) / clip.w;
}

TEST(Camera, YawAndPitchPlaceTheEyeAsDocumented) {
  Camera camera;
  camera.target = {1.0f, 2.0f, 3.0f};
  camera.distance = 2.0f;
  camera.yawDegrees = 0.0f, camera.pitchDegrees = 0.0f;
  expectNear(camera.eye(), {1.0f, 2.0f, 5.0f});  // on +Z, looking along -Z
  camera.yawDegrees = 90.0f;
  expectNear(camera.eye(), {3.0f, 2.0f, 3.0f});
  camera.pitchDegrees = 90.0f;
  expectNear(camera.eye(), {1.0f, 4.0f, 3.0f});  // straight above
}

TEST(Camera, TheTargetIsInTheMiddleAndRightAndUpPointThatWay) {
  Camera camera;
  camera.target = {0.5f, -1.0f, 2.0f};
  for (float pitch : {-90.0f, -30.0f, 0.0f, 45.0f, 90.0f}) {  // +-90 too: no degenerate up vector
    camera.pitchDegrees = pitch;
    expectNear(project(camera, 1.5f, camera.target) * glm::vec3(1, 1, 0), glm::vec3(0.0f));
    EXPECT_GT(project(camera, 1.5f, camera.target + 0.1f * camera.right()).x, 0.0f) << pitch;
    EXPECT_GT(project(camera, 1.5f, camera.target + 0.1f * camera.up()).y, 0.0f) << pitch;
    EXPECT_NEAR(glm::dot(camera.right(), camera.forward()), 0.0f, kClose);
    EXPECT_NEAR(glm::length(camera.up()), 1.0f, kClose);
  }
}

TEST(Camera, FitPutsEveryPointOfTheSphereInThePicture) {
  const BoundingSphere sphere{{1.0f, 0.0f, -2.0f}, 3.0f};
  for (float aspect : {0.5f, 1.0f, 2.0f}) {
    Camera camera;
    camera.yawDegrees = 40.0f, camera.pitchDegrees = -25.0f;
    camera.fit(sphere, aspect);
    float largest = 0.0f;
    for (glm::vec3 direction : {camera.right(), camera.up(), -camera.right(), -camera.up()}) {
      // The sphere's silhouette touches the view cone slightly off the direction itself; sample
      // points around the rim towards the eye as well.
      for (float towardsEye : {0.0f, 0.1f, 0.2f, 0.3f}) {
        const glm::vec3 rim =
            sphere.centre +
            sphere.radius * glm::normalize(direction - towardsEye * camera.forward());
        const glm::vec3 ndc = project(camera, aspect, rim);
        largest = std::max({largest, std::abs(ndc.x), std::abs(ndc.y)});
      }
    }
    EXPECT_LT(largest, 1.0f) << "aspect " << aspect;
    EXPECT_GT(largest, 0.85f) << "aspect " << aspect
                              << ": it should fill the picture, not float in it";
  }
}

TEST(Camera, OrbitClampsThePitchAndZoomAndPanMoveAsDocumented) {
  Camera camera;
  camera.orbit(400.0f, 200.0f);
  EXPECT_FLOAT_EQ(camera.pitchDegrees, 90.0f);
  EXPECT_NEAR(camera.yawDegrees, 70.0f, 1e-4f);  // 30 + 400 - 360
  camera.distance = 4.0f;
  camera.zoom(2.0f);
  EXPECT_FLOAT_EQ(camera.distance, 2.0f);
  camera.zoom(0.0f);  // ignored
  EXPECT_FLOAT_EQ(camera.distance, 2.0f);
  const glm::vec3 before = camera.target;
  camera.pan({0.5f, 0.0f});  // half a picture to the right: the picture is 2 d tan(fov / 2) high
  const float pictureHeight =
      2.0f * 2.0f * std::tan(0.5f * glm::radians(camera.verticalFovDegrees));
  expectNear(camera.target - before, 0.5f * pictureHeight * camera.right());
}

TEST(BoundingSphere, IsCentredOnTheCentreOfMassAndHoldsEveryBody) {
  const State state = findScene("plummer")->generate(2000, 3);
  const BoundingSphere sphere = boundingSphere(state);
  expectNear(sphere.centre, glm::vec3(0.0f), 1e-5f);  // the scene is in its centre-of-mass frame
  float farthest = 0.0f;
  for (const glm::vec4& p : state.positionMass)
    farthest = std::max(farthest, glm::length(glm::vec3(p)));
  EXPECT_NEAR(sphere.radius, farthest, 1e-4f);
}

TEST(CameraSpec, ReadsPresetsAndNumbers) {
  const CameraSpec top = parseCameraSpec("top");
  EXPECT_EQ(top.pitchDegrees, 90.0f);
  EXPECT_FALSE(top.distance);
  const CameraSpec numbers = parseCameraSpec("-45,10.5,7");
  EXPECT_EQ(numbers.yawDegrees, -45.0f);
  EXPECT_EQ(numbers.pitchDegrees, 10.5f);
  EXPECT_EQ(numbers.distance, 7.0f);
  EXPECT_FALSE(parseCameraSpec("10,20").distance);
  for (const char* bad :
       {"", "sideways", "10", "10,20,30,40", "10,91", "10,20,0", "10,20,-1", "a,b", "10,nan"})
    EXPECT_THROW(parseCameraSpec(bad), std::invalid_argument) << bad;
}

TEST(CameraSpec, PlacesTheCameraAtTheGivenDistanceOrTheFittingOne) {
  const BoundingSphere sphere{{0.0f, 1.0f, 0.0f}, 2.0f};
  const Camera fitted = placeCamera(parseCameraSpec("front"), sphere, 1.0f);
  Camera expected;
  expected.yawDegrees = 0.0f, expected.pitchDegrees = 0.0f;
  expected.fit(sphere, 1.0f);
  EXPECT_FLOAT_EQ(fitted.distance, expected.distance);
  expectNear(fitted.target, sphere.centre);
  EXPECT_FLOAT_EQ(placeCamera(parseCameraSpec("0,0,3.5"), sphere, 1.0f).distance, 3.5f);
}

}  // namespace
}  // namespace nbody
