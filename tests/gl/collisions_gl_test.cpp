// Collisions on the GPU engines (app/run/collision_watch.h): the head-on pair ends as one body at
// rest at the origin exactly in float32 (the mirror symmetry survives every engine's sums), a ring
// falling into its centre merges in one step as on the CPU engine, and a run of many mergers gives
// the same bits twice. The engines' contact screen misses no two bodies that overlap, and passes
// bodies that are not within reach; the direct engines' screened runs give the bits of runs looked
// at on the host at every boundary (their force passes add the same terms either way).

#include <algorithm>
#include <cmath>
#include <numbers>

#include "app/run/collision_watch.h"
#include "engines/gpu_engine.h"
#include "engines/registry.h"
#include "gl/gl_test.h"
#include "physics/collisions.h"
#include "physics/method.h"
#include "physics/scenes.h"
#include "support/collision_runs.h"
#include "support/test_support.h"

namespace nbody {
namespace {

using test::GlTest;
using test::makeEngine;

class CollisionEngines : public GlTest, public ::testing::WithParamInterface<std::string> {
 protected:
  std::unique_ptr<Engine> engine() const { return makeEngine(GetParam(), {}); }
};

// Steps `engine` with collisions looked at every boundary, screened by the engine or (`screen`
// false) all on the host; the mergers it made.
long long stepWithCollisions(Engine& engine, const CollisionSettings& settings, StepParams params,
                             long long steps, const Method& method, bool screen = true) {
  CollisionWatch watch(
      settings, engine, [&](long long step) { return double(step) * params.dt; }, screen);
  EXPECT_FALSE(watch.look(params, 0));
  EXPECT_FALSE(watch.advance(method, params, 0, steps));
  EXPECT_EQ(params.stepsDone, steps);
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

// Radii of their own (1 each): A and B touch at step 0 and merge into a body of radius cbrt(2) at
// rest at the origin; C, coming in at 1 from x = 12, touches it at separation 1 + cbrt(2), at
// step 975 of 0.01 (G = 1e-12: the motion is straight). A screen that kept the first size (reach
// 2) would mark only from step 1000: after 990 steps C has merged, on every engine as on the CPU.
TEST_P(CollisionEngines, AGrownBodyIsScreenedAtItsNewSize) {
  State three;
  three.positionMass = {{-1, 0, 0, 1}, {1, 0, 0, 1}, {12, 0, 0, 1}};
  three.velocity = {{0.5f, 0, 0, 0}, {-0.5f, 0, 0, 0}, {-1, 0, 0, 0}};
  const CollisionSettings settings{.mode = CollisionMode::merge, .radii = {1.0, 1.0, 1.0}};
  for (const std::string& name : {GetParam(), std::string("cpu")}) {
    const auto stepper = makeEngine(name);
    stepper->upload(three);
    EXPECT_EQ(stepWithCollisions(*stepper, settings, StepParams(0.01, 0.0, 1e-12), 990,
                                 *findMethod("leapfrog")),
              2)
        << name;
    EXPECT_EQ(stepper->download().positionMass[0].w, 3.0f) << name;
  }
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

// Whether two massive bodies of `state` (in double, from its floats) lie within `reach(r_i, r_j,
// d)` of each other.
template <typename Reach>
bool anyPairWithin(const State& state, const CollisionSettings& settings, Reach reach) {
  for (std::size_t i = 0; i < state.size(); ++i) {
    if (!(state.positionMass[i].w > 0.0f)) continue;
    const glm::dvec3 xi(state.positionMass[i]);
    const double ri = settings.radiusOf(i, state.positionMass[i].w);
    for (std::size_t j = i + 1; j < state.size(); ++j) {
      if (!(state.positionMass[j].w > 0.0f)) continue;
      const double d = glm::length(glm::dvec3(state.positionMass[j]) - xi);
      if (reach(ri, settings.radiusOf(j, state.positionMass[j].w), d)) return true;
    }
  }
  return false;
}

// A Plummer sphere of 4096 (the tree accepts cells there) with body 0 64 times heavier (larger
// where the radius follows the mass) and body 1 planted at `separation` times r_0 + r_1 from it,
// massless where `massless`.
State plantedPair(const CollisionSettings& settings, double separation, bool massless) {
  State state = findScene("plummer")->generate(4096, 5);
  state.positionMass[0].w *= 64.0f;
  const float mass1 = massless ? 0.0f : state.positionMass[1].w;
  const double reach =
      settings.radiusOf(0, state.positionMass[0].w) + settings.radiusOf(1, state.positionMass[1].w);
  const glm::vec3 direction = glm::normalize(glm::vec3(0.3f, -0.5f, 0.8f));
  state.positionMass[1] =
      glm::vec4(glm::vec3(state.positionMass[0]) + float(separation * reach) * direction, mass1);
  return state;
}

// Overlapping bodies (d <= r_i + r_j: touching, if they approach) are always marked; where no two
// massive bodies come within 2 max(r_i, r_j) (with room for rounding) of each other, and none
// within the band that eps^2 rounds away (~7e-4 eps), the boundary is clear. The planted pair
// touches (0.999), just misses reach (2.05 x the larger radius), or is massless (never touches).
TEST_P(CollisionEngines, TheScreenMarksEveryOverlapAndPassesBodiesOutOfReach) {
  const auto gpu = engine();
  int clearChecked = 0, markChecked = 0;
  for (const double softening : {0.0, 0.05})
    for (const CollisionSettings& settings :
         {CollisionSettings{.mode = CollisionMode::merge, .radius = 4e-4},
          CollisionSettings{.mode = CollisionMode::merge, .density = 3e7}})
      for (const auto& [separation, massless] :
           {std::pair{0.999, false}, std::pair{2.1, false}, std::pair{0.5, true}}) {
        const State state = plantedPair(settings, separation, massless);
        gpu->upload(state);
        ASSERT_TRUE(gpu->screenContacts(settings.screenedBodies()));
        const ContactScreen screen = gpu->screenCurrentState(StepParams(0.01, softening, 1.0));
        const std::string what = "eps " + std::to_string(softening) + ", radius " +
                                 std::to_string(settings.radius) + ", separation " +
                                 std::to_string(separation) + (massless ? ", massless" : "");
        if (anyPairWithin(state, settings,
                          [](double r1, double r2, double d) { return d <= r1 + r2; })) {
          EXPECT_EQ(screen, ContactScreen::possible) << what;
          ++markChecked;
        } else if (!anyPairWithin(state, settings, [&](double r1, double r2, double d) {
                     return d < 2.01 * std::max(r1, r2) || d < 1e-3 * softening;
                   })) {
          EXPECT_EQ(screen, ContactScreen::clear) << what;
          ++clearChecked;
        }
      }
  gpu->screenContacts(std::nullopt);
  EXPECT_GE(markChecked, 4);
  EXPECT_GE(clearChecked, 4);
}

// Bodies of `state` with a massive body besides themselves within `reach` (in double, from its
// floats), by a sweep along x.
std::size_t bodiesWithin(const State& state, double reach) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < state.size(); ++i)
    if (state.positionMass[i].w > 0.0f) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return state.positionMass[a].x < state.positionMass[b].x;
  });
  std::vector<bool> near(state.size(), false);
  for (std::size_t a = 0; a < order.size(); ++a)
    for (std::size_t b = a + 1; b < order.size(); ++b) {
      const glm::dvec3 xa(state.positionMass[order[a]]), xb(state.positionMass[order[b]]);
      if (xb.x - xa.x > reach) break;
      if (glm::length(xb - xa) < reach) near[order[a]] = near[order[b]] = true;
    }
  return std::size_t(std::count(near.begin(), near.end(), true));
}

// Direction k of `count` spread over the sphere (a Fibonacci spiral).
glm::dvec3 spreadDirection(std::size_t k, std::size_t count) {
  const double angle = 2.399963 * double(k), z = 1.0 - 2.0 * (double(k) + 0.5) / double(count);
  return {std::sqrt(1 - z * z) * std::cos(angle), std::sqrt(1 - z * z) * std::sin(angle), z};
}

// Moves body `body` of `state` to `at` (its mass stays).
void moveBody(State& state, std::size_t body, const glm::dvec3& at) {
  state.positionMass[body] = glm::vec4(glm::vec3(at), state.positionMass[body].w);
}

// The layouts of engine `name` whose screen leaves each body's own term out differently: the
// direct engines' blocks of bodies i (bodies per thread or fragment, the unrolled texel blocks) in
// one slice of the j-loop (with several, a body whose partners lie in two is counted twice).
std::vector<test::Variant> screenLayouts(const std::string& name) {
  if (name == "compute")
    return {{{"slices", "1"}, {"group-size", "64"}, {"bodies-per-thread", "1"}},
            {{"slices", "1"}, {"group-size", "64"}, {"bodies-per-thread", "4"}}};
  if (name == "fragment")
    return {{{"slices", "1"}, {"bodies-per-fragment", "1"}, {"unroll", "4x4"}},
            {{"slices", "1"}, {"bodies-per-fragment", "4"}, {"unroll", "2x2"}},
            {{"slices", "1"}, {"bodies-per-fragment", "4"}, {"unroll", "8x8"}}};
  return {{}};
}

// Through a Plummer sphere of 4032 (64 x 63 texels: the fragment engine's blocks of two rows leave
// a bottom row, summed texel by texel): 600 pairs, each body 0.99 (r_i + r_j) from its partner in a
// direction of its own, and 100 clusters of 8 bodies 2r / 50 across, each with a body 0.6 x 2r
// from it. Every body of them is counted, and no other, through the direct engines' j loops in
// each layout and the tree's lists (many pairs and clusters straddle two of its groups).
TEST_P(CollisionEngines, TheScreenCountsEveryBodyOfEveryTouchingPair) {
  const CollisionSettings settings{.mode = CollisionMode::merge, .radius = 4e-4};
  const double touching = 2.0 * settings.radius;
  State state = findScene("plummer")->generate(4032, 5);
  for (std::size_t k = 0; k < 600; ++k)
    moveBody(state, 2 * k + 1,
             glm::dvec3(state.positionMass[2 * k]) + 0.99 * touching * spreadDirection(k, 600));
  for (std::size_t k = 0, first = 1200; k < 100; ++k, first += 9) {
    const glm::dvec3 centre(state.positionMass[first]);
    for (std::size_t m = 0; m < 8; ++m)
      moveBody(state, first + m, centre + touching / 50 * spreadDirection(m, 8));
    moveBody(state, first + 8, centre + 0.6 * touching * spreadDirection(k, 100));
  }
  // No body near the screen's edge (2 r, within rounding), so that the count is exact.
  const std::size_t expected = bodiesWithin(state, 2.0 * settings.radius * 0.995);
  ASSERT_EQ(expected, bodiesWithin(state, 2.0 * settings.radius * 1.005));
  ASSERT_GE(expected, 2100u);
  for (const test::Variant& layout : screenLayouts(GetParam())) {
    const auto gpu = makeEngine(GetParam(), layout);
    gpu->upload(state);
    ASSERT_TRUE(gpu->screenContacts(settings.screenedBodies()));
    for (const double softening : {0.0, 0.01}) {
      EXPECT_EQ(gpu->screenCurrentState(StepParams(0.01, softening, 1.0)), ContactScreen::possible);
      EXPECT_EQ(dynamic_cast<GpuEngine&>(*gpu).contactCounts(),
                std::vector<std::int64_t>{std::int64_t(expected)})
          << "eps " << softening << ", " << ::testing::PrintToString(layout);
    }
    gpu->screenContacts(std::nullopt);
  }
}

// A body beside a cluster of 8 (more than the tree's smallCell, 0.004 across) that sorts into
// another group of 64, whose box is 0.35 from the cluster: the cluster is a cell that group
// accepts, far for its size; 63 bodies at least 1 apart fill the rest. Every body the host finds
// within 2r (0.5) of another is counted, the lone body included: only the cell opened for
// contacts brings it to the cluster (checked: without them the tree counts 8). Also mirrored, for
// either order of the two groups.
TEST_P(CollisionEngines, TheScreenCountsABodyBesideAClusterOfAnotherGroup) {
  const CollisionSettings settings{.mode = CollisionMode::merge, .radius = 0.25};
  for (const float side : {1.0f, -1.0f}) {
    State state;
    for (int k = 0; k < 63; ++k)
      state.positionMass.emplace_back(side * float(-1 - k % 9), float(k / 9 % 3 * 2),
                                      float(k / 27 * 2), 1.0f);
    state.positionMass.emplace_back(side * -0.2f, 0.0f, 0.0f, 1.0f);
    for (std::size_t m = 0; m < 8; ++m)
      state.positionMass.emplace_back(
          glm::vec3(side * 0.15f, 0.0f, 0.0f) + glm::vec3(0.002 * spreadDirection(m, 8)), 1.0f);
    state.velocity.assign(state.size(), glm::vec4(0.0f));
    const std::size_t expected = bodiesWithin(state, 2.0 * settings.radius);
    ASSERT_EQ(expected, 9u);
    const auto gpu = GetParam() == "tree" ? engine() : makeEngine(GetParam(), {{"slices", "1"}});
    gpu->upload(state);
    ASSERT_TRUE(gpu->screenContacts(settings.screenedBodies()));
    EXPECT_EQ(gpu->screenCurrentState(StepParams(0.01, 0.0, 1.0)), ContactScreen::possible);
    EXPECT_EQ(dynamic_cast<GpuEngine&>(*gpu).contactCounts(), std::vector<std::int64_t>{9})
        << "side " << side;
  }
}

// bench --collisions merge times the screened steps simulate makes: the same mergers in as many
// steps (the screen and its windows, through CollisionWatch, under another partition of the steps).
TEST_P(CollisionEngines, BenchMergesWhatSimulateMerges) {
  test::ScratchFolder scratch("collision-bench-" + GetParam());
  test::expectBenchMergesWhatSimulateMerges(GetParam(), scratch);
}

INSTANTIATE_TEST_SUITE_P(EveryGpuEngine, CollisionEngines,
                         ::testing::Values("fragment", "compute", "tree"));

// The direct engines screen in the force pass without changing a term it adds, so a run screened
// gives the bits of the same run, in the same layout, looked at on the host at every boundary: with
// leapfrog (FSAL: each step's last pass screens its end) and RK4 (the first pass of each step, and
// a pass of its own at the end of a run).
class DirectCollisionEngines : public CollisionEngines {};

TEST_P(DirectCollisionEngines, ScreenedRunsGiveTheBitsOfRunsLookedAtOnTheHost) {
  const State start = findScene("protoplanets")->generate(512, 3);
  const CollisionSettings settings{.mode = CollisionMode::merge, .density = 8.0};
  for (const auto& [method, steps] : {std::pair{"leapfrog", 150}, std::pair{"rk4", 60}}) {
    State ends[2];
    long long mergers[2];
    for (const bool screen : {true, false}) {
      const auto gpu = engine();
      applyScreenedSettings(*gpu, {});  // as simulate screens (fragment: 8 a fragment, 8 slices)
      gpu->upload(start);
      mergers[screen] = stepWithCollisions(*gpu, settings, StepParams(0.01, 0.001, 1.0), steps,
                                           *findMethod(method), screen);
      ends[screen] = gpu->download();
    }
    EXPECT_GE(mergers[0], 10) << method;
    EXPECT_EQ(mergers[1], mergers[0]) << method;
    EXPECT_TRUE(test::sameBits(ends[0], ends[1])) << method;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryDirectEngine, DirectCollisionEngines,
                         ::testing::Values("fragment", "compute"));

// The compute engine's passes that screen take groups of 256 from 16384 bodies, at the default's
// slices: 18500 bodies (18576 texels, where slices of whole tiles of 256 would end elsewhere),
// leapfrog with no contact, screened and not: the same bits.
class ComputeCollisionRuns : public GlTest {};

TEST_F(ComputeCollisionRuns, ScreenedPassesOfManyBodiesKeepTheBits) {
  const State start = findScene("plummer")->generate(18500, 7);
  const CollisionSettings settings{.mode = CollisionMode::merge, .radius = 1e-9};
  State ends[2];
  for (const bool screen : {true, false}) {
    const auto gpu = makeEngine("compute", {});
    gpu->upload(start);
    EXPECT_EQ(stepWithCollisions(*gpu, settings, StepParams(0.001, 0.01, 1.0), 2,
                                 *findMethod("leapfrog"), screen),
              0);
    ends[screen] = gpu->download();
  }
  EXPECT_TRUE(test::sameBits(ends[0], ends[1]));
}

// simulate --collisions screens with the engine's screened settings (the fragment engine: 8
// bodies a fragment, 8 slices) unless --set says otherwise, and says so; bodies a fragment change
// no bit.
TEST(FragmentCollisionRuns, ScreenWithEightBodiesAFragmentUnlessSetOtherwise) {
  test::ScratchFolder scratch("collision-layout");
  const std::string run =
      "simulate --engine fragment --scene protoplanets --bodies 512 --seed 3 --method leapfrog "
      "--dt 0.01 --softening 0.001 --steps 120 --collisions merge --density 8 ";
  const std::string outputs[] = {(scratch / "screened.csv").string(),
                                 (scratch / "four.csv").string()};
  const test::CommandResult screened = test::runNbody(run + "-o " + outputs[0], scratch);
  const test::CommandResult four =
      test::runNbody(run + "--set bodies-per-fragment=4 -o " + outputs[1], scratch);
  ASSERT_EQ(screened.exitCode, 0) << screened.err;
  ASSERT_EQ(four.exitCode, 0) << four.err;
  EXPECT_NE(screened.err.find("bodies-per-fragment=8 "), std::string::npos) << screened.err;
  EXPECT_NE(four.err.find("bodies-per-fragment=4 "), std::string::npos) << four.err;
  for (const test::CommandResult* result : {&screened, &four})
    EXPECT_NE(result->err.find("slices=8"), std::string::npos) << result->err;
  EXPECT_NE(four.err.find("collision: "), std::string::npos) << "no merger to compare";
  EXPECT_TRUE(test::readWholeFile(outputs[0]) == test::readWholeFile(outputs[1]));
}

}  // namespace
}  // namespace nbody
