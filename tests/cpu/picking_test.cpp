// Picking: where a body lands on the picture against the projection worked out by hand, the body
// a click at that place picks, the bodies a box holds against a brute-force count; the selection
// kept by ID when the bodies come back in another order.

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include <gtest/gtest.h>
#include <glm/trigonometric.hpp>

#include "app/run/render_options.h"
#include "physics/scenes.h"
#include "render/picking.h"
#include "render/selection.h"
#include "support/test_support.h"

namespace nbody {
namespace {

constexpr glm::vec2 kPicture{400.0f, 300.0f};

State someBodies(std::size_t count, unsigned seed) {
  return findScene("plummer")->generate(count, seed);
}

TEST(Picking, ABodyLandsWhereThePerspectiveProjectionPutsIt) {
  // From the front at distance d with a vertical field of view f, a point (x, y, 0) is
  // x * h / (2 d tan(f / 2)) pixels right of the middle and as many times y up.
  const Camera camera = test::frontCamera(4.0f);
  const float pixelsPerUnit =
      kPicture.y / (2.0f * 4.0f * std::tan(glm::radians(camera.verticalFovDegrees) / 2.0f));
  for (const glm::vec2 point : {glm::vec2(0.0f), glm::vec2(1.0f, 0.5f), glm::vec2(-0.7f, -1.2f)}) {
    const auto placed = pictureOf(camera, kPicture, glm::vec3(point, 0.0f));
    ASSERT_TRUE(placed);
    EXPECT_NEAR(placed->x, 200.0f + point.x * pixelsPerUnit, 1e-3f);
    EXPECT_NEAR(placed->y, 150.0f - point.y * pixelsPerUnit, 1e-3f);
  }
  EXPECT_FALSE(pictureOf(camera, kPicture, {0.0f, 0.0f, 5.0f})) << "behind the camera";
}

TEST(Picking, AClickWhereABodyLandsPicksThatBody) {
  const State state = someBodies(300, 4);
  Camera camera;
  camera.fit(boundingSphere(state), kPicture.x / kPicture.y);
  int picked = 0;
  for (std::size_t i = 0; i < state.size(); ++i) {
    const auto placed = pictureOf(camera, kPicture, glm::vec3(state.positionMass[i]));
    if (!placed) continue;
    const auto body = bodyNearest(state, camera, kPicture, *placed, 10.0f, 0);
    ASSERT_TRUE(body);
    // Another body landing on the very same pixel may win only by being nearer the camera.
    if (*body != i) {
      EXPECT_NEAR(
          glm::length(*pictureOf(camera, kPicture, glm::vec3(state.positionMass[*body])) - *placed),
          0.0f, 1e-3f);
      continue;
    }
    ++picked;
  }
  EXPECT_GT(picked, 290);
  EXPECT_FALSE(bodyNearest(state, camera, kPicture, {-100.0f, -100.0f}, 10.0f, 0))
      << "nothing within 10 pixels";
}

TEST(Picking, OfTwoBodiesOnOnePixelTheNearerAndNeverAHiddenOne) {
  State state;
  state.positionMass = {
      {0.0f, 0.0f, -1.0f, 1.0f}, {0.0f, 0.0f, 1.0f, 1.0f}, {0.5f, 0.0f, 0.0f, 1.0f}};
  state.velocity.assign(3, glm::vec4(0.0f));
  state.id = {10, 20, 30};
  state.component = {1, 1, 4};
  const Camera camera = test::frontCamera(5.0f);
  EXPECT_EQ(bodyNearest(state, camera, kPicture, {200.0f, 150.0f}, 5.0f, 0), 1u)
      << "z = 1 is nearer the eye at z = 5";
  const glm::vec2 third = *pictureOf(camera, kPicture, {0.5f, 0.0f, 0.0f});
  EXPECT_EQ(bodyNearest(state, camera, kPicture, third + glm::vec2(3.0f, 0.0f), 5.0f, 0), 2u);
  EXPECT_FALSE(bodyNearest(state, camera, kPicture, third, 5.0f, 1u << 4)) << "component 4 hidden";
}

TEST(Picking, ABoxHoldsTheBodiesLandingInsideItNearestItsMiddleFirst) {
  const State state = someBodies(500, 5);
  Camera camera;
  camera.yawDegrees = 40.0f, camera.pitchDegrees = -25.0f;
  camera.fit(boundingSphere(state), kPicture.x / kPicture.y);
  const glm::vec2 corner{150.0f, 100.0f}, otherCorner{250.0f, 190.0f};
  std::vector<std::size_t> expected;
  for (std::size_t i = 0; i < state.size(); ++i) {
    const auto placed = pictureOf(camera, kPicture, glm::vec3(state.positionMass[i]));
    if (placed && placed->x >= 150.0f && placed->x <= 250.0f && placed->y >= 100.0f &&
        placed->y <= 190.0f)
      expected.push_back(i);
  }
  ASSERT_GT(expected.size(), 70u);
  std::vector<std::size_t> inside =
      bodiesInside(state, camera, kPicture, otherCorner, corner, 0, 10000);
  std::sort(inside.begin(), inside.end());
  EXPECT_EQ(inside, expected) << "the corners in either order";
  const std::vector<std::size_t> few =
      bodiesInside(state, camera, kPicture, corner, otherCorner, 0, 5);
  ASSERT_EQ(few.size(), 5u);
  const glm::vec2 middle{200.0f, 145.0f};
  float farthestKept = 0.0f, nearestLeft = 1e9f;
  for (std::size_t i : expected) {
    const float distance =
        glm::length(*pictureOf(camera, kPicture, glm::vec3(state.positionMass[i])) - middle);
    const bool kept = std::find(few.begin(), few.end(), i) != few.end();
    if (kept)
      farthestKept = std::max(farthestKept, distance);
    else
      nearestLeft = std::min(nearestLeft, distance);
  }
  EXPECT_LE(farthestKept, nearestLeft);
}

TEST(Selection, SelectTakesUpTo64IdsAndSaysWhatIsWrong) {
  EXPECT_EQ(parseIdList("7,1,18446744073709551615"),
            (std::vector<std::uint64_t>{7, 1, 18446744073709551615ull}));
  std::string many = "1";
  for (int k = 2; k <= 65; ++k)
    many.append(",").append(std::to_string(k));  // GCC 12: -Wrestrict on +
  EXPECT_THROW(parseIdList(many), std::invalid_argument) << "65 IDs";
  EXPECT_EQ(parseIdList(many.substr(0, many.rfind(','))).size(), 64u);
  for (const std::string bad : {"", "1,", "-1", "1.5", "x", "18446744073709551616"})
    EXPECT_THROW(parseIdList(bad), std::invalid_argument) << bad;
}

TEST(Selection, KeepsItsBodiesByIdWhenTheyComeBackInAnotherOrder) {
  State state = someBodies(200, 6);
  Selection selection;
  selection.pick(state, {7, 50, 7, 199}, false);
  ASSERT_EQ(selection.bodies().size(), 3u) << "a body picked twice is kept once";
  const std::vector<std::uint64_t> ids = {bodyId(state, 7), bodyId(state, 50), bodyId(state, 199)};
  // The same bodies shuffled, and one of them gone.
  std::vector<std::size_t> order(state.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(1));
  State shuffled;
  for (std::size_t i : order) {
    if (i == 50) continue;
    shuffled.positionMass.push_back(state.positionMass[i]);
    shuffled.velocity.push_back(state.velocity[i]);
    shuffled.id.push_back(bodyId(state, i));
    shuffled.component.push_back(componentOf(state, i));
  }
  selection.findIn(shuffled);
  for (std::size_t k = 0; k < 3; ++k) {
    const SelectedBody& body = selection.bodies()[k];
    EXPECT_EQ(body.id, ids[k]);
    EXPECT_EQ(body.found, k != 1) << "body " << body.id;
    if (!body.found) continue;
    EXPECT_EQ(bodyId(shuffled, body.index), body.id);
    EXPECT_EQ(body.position, glm::vec3(shuffled.positionMass[body.index]));
  }
  EXPECT_EQ(selection.indices().size(), 2u) << "only the found ones are read back";
}

TEST(Selection, FollowsItsBodiesDrawingTheirOrbitsAndAddsUpToItsLimit) {
  const State state = someBodies(100, 7);
  Selection selection;
  selection.pick(state, {1, 2}, false);
  selection.pick(state, {3}, true);
  ASSERT_EQ(selection.bodies().size(), 3u);
  for (int frame = 1; frame <= 3; ++frame) {
    std::vector<BodyNow> now(3);
    for (int k = 0; k < 3; ++k)
      now[std::size_t(k)].positionMass = glm::vec4(float(frame), float(k), 0.0f, 1.0f);
    selection.follow(now);
    selection.follow(now);  // not moved: no new point
  }
  for (const SelectedBody& body : selection.bodies())
    EXPECT_EQ(body.orbit.size(), 4u) << "picked, then 3 frames";
  EXPECT_EQ(*selection.centre(), glm::vec3(3.0f, 1.0f, 0.0f));
  selection.forgetOrbits();
  EXPECT_EQ(selection.bodies()[0].orbit.size(), 1u);
  std::vector<std::size_t> many(100);
  std::iota(many.begin(), many.end(), 0);
  selection.pick(state, many, true);
  EXPECT_EQ(selection.bodies().size(), Selection::kMostBodies);
  selection.pick(state, {}, false);
  EXPECT_TRUE(selection.empty()) << "a click on nothing without Ctrl empties it";
}

}  // namespace
}  // namespace nbody
