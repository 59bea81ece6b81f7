// Collisions on the GPU engines (app/run/collision_watch.h): the head-on pair ends as one body at
// rest at the origin exactly in float32 (the mirror symmetry survives every engine's sums), a ring
// falling into its centre merges in one step as on the CPU engine, and a run of many mergers gives
// the same bits twice.

#include <algorithm>
#include <cmath>
#include <numbers>

#include "app/run/collision_watch.h"
#include "engines/registry.h"
#include "gl/gl_test.h"
#include "physics/collisions.h"
#include "physics/method.h"
#include "physics/scenes.h"
#include "support/test_support.h"

namespace nbody {
namespace {

using test::GlTest;
using test::makeEngine;

class CollisionEngines : public GlTest, public ::testing::WithParamInterface<std::string> {
 protected:
  std::unique_ptr<Engine> engine() const { return makeEngine(GetParam(), {}); }
};

// Steps `engine` with collisions checked at every boundary; the mergers it made.
long long stepWithCollisions(Engine& engine, const CollisionSettings& settings, StepParams params,
                             long long steps, const Method& method) {
  CollisionWatch watch(settings);
  watch.check(engine, params, 0, 0.0);
  for (long long step = 1; step <= steps; ++step) {
    engine.step(method, params);
    ++params.stepsDone;
    watch.check(engine, params, step, params.time());
  }
  return watch.mergers();
}

// m = 1, r = 1 at x = -3 and 3 from rest (REBOUND test_bs_collide): one body of mass 2 at rest at
// the origin, exactly, and the other massless on it.
TEST_P(CollisionEngines, TheHeadOnPairEndsAsOneBodyAtRestAtTheOrigin) {
  State pair;
  pair.positionMass = {{-3, 0, 0, 1}, {3, 0, 0, 1}};
  pair.velocity = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  const auto gpu = engine();
  gpu->upload(pair);
  const CollisionSettings settings{.mode = CollisionMode::merge, .radius = 1.0};
  EXPECT_EQ(
      stepWithCollisions(*gpu, settings, StepParams(0.01, 0.0, 1.0), 1100, *findMethod("leapfrog")),
      1);
  const State merged = gpu->download();
  EXPECT_EQ(merged.positionMass[0], glm::vec4(0, 0, 0, 2));
  EXPECT_EQ(merged.velocity[0], glm::vec4(0, 0, 0, 0));
  EXPECT_EQ(merged.positionMass[1], glm::vec4(0, 0, 0, 0));
}

// 24 bodies falling onto a central one (REBOUND #817): every engine merges all 25 at the first
// boundary, as the CPU engine does, into body 1 with the summed mass (dyadic: exact in float32).
TEST_P(CollisionEngines, ARingFallsIntoItsCentreInOneStepAsOnTheCpu) {
  State ring;
  ring.positionMass.emplace_back(0, 0, 0, 1);
  ring.velocity.emplace_back(0, 0, 0, 0);
  for (int k = 0; k < 24; ++k) {
    const double angle = 2.0 * std::numbers::pi * k / 24.0;
    const glm::vec3 out(float(std::cos(angle)), float(std::sin(angle)), 0.0f);
    ring.positionMass.emplace_back(1.2f * out, 1.0f / 1024);
    ring.velocity.emplace_back(-0.5f * out, 0.0f);
  }
  const CollisionSettings settings{.mode = CollisionMode::merge,
                                   .density = 3.0 / (4.0 * std::numbers::pi)};
  for (const std::string& name : {GetParam(), std::string("cpu")}) {
    const auto each = makeEngine(name, {});
    each->upload(ring);
    EXPECT_EQ(stepWithCollisions(*each, settings, StepParams(0.25, 0.01, 1.0), 1,
                                 *findMethod("leapfrog")),
              1)
        << name;
    const State merged = each->download();
    EXPECT_EQ(merged.positionMass[0].w, 1.0f + 24.0f / 1024) << name;
    for (std::size_t i = 1; i < merged.size(); ++i) ASSERT_EQ(merged.positionMass[i].w, 0.0f);
  }
}

// The protoplanets scene with large radii (the star 0.31, a planetesimal 0.008): tens of mergers,
// the same bits run after run.
TEST_P(CollisionEngines, ManyMergersGiveTheSameBitsTwice) {
  const State start = findScene("protoplanets")->generate(512, 3);
  const CollisionSettings settings{.mode = CollisionMode::merge, .density = 8.0};
  State ends[2];
  long long mergers[2];
  for (int run = 0; run < 2; ++run) {
    const auto gpu = engine();
    gpu->upload(start);
    mergers[run] = stepWithCollisions(*gpu, settings, StepParams(0.01, 0.001, 1.0), 150,
                                      *findMethod("leapfrog"));
    ends[run] = gpu->download();
  }
  EXPECT_GE(mergers[0], 10);
  EXPECT_EQ(mergers[1], mergers[0]);
  EXPECT_TRUE(test::sameBits(ends[0], ends[1]));
}

INSTANTIATE_TEST_SUITE_P(EveryGpuEngine, CollisionEngines,
                         ::testing::Values("fragment", "compute", "tree"));

}  // namespace
}  // namespace nbody
