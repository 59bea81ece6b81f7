// Real data through every engine: GADGET-2's two-galaxy file (assets/gadget/, 60,000 bodies, two
// components) steps on every engine as on the double-precision CPU engine; IDs and components
// follow every body through the tree's sort, every method, an engine switch, and a restart from a
// .nbody or GADGET HDF5 snapshot.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engines/cpu_engine.h"
#include "gl/gl_test.h"
#include "io/snapshot.h"
#include "physics/method.h"
#include "physics/scenes.h"
#include "support/cli_runner.h"
#include "support/test_support.h"

namespace nbody {
namespace {

using test::GlTest;
using test::sameIdentity;
using test::ScratchFolder;

// How far an engine's velocity changes over a step lie from the CPU engine's, over the largest
// change: the force error as the step shows it.
double velocityChangeError(const State& start, const State& engine, const State& reference) {
  double worst = 0.0, largest = 0.0;
  for (std::size_t i = 0; i < start.size(); ++i) {
    const glm::dvec3 change = glm::dvec3(reference.velocity[i]) - glm::dvec3(start.velocity[i]);
    const glm::dvec3 difference =
        glm::dvec3(engine.velocity[i]) - glm::dvec3(reference.velocity[i]);
    largest = std::max(largest, glm::length(change));
    worst = std::max(worst, glm::length(difference));
  }
  return worst / largest;
}

bool sameMasses(const State& a, const State& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a.positionMass[i].w, &b.positionMass[i].w, sizeof(float)) != 0) return false;
  return true;
}

class FormatsGl : public GlTest {};

// One Euler step of dt = 1e-4 (0.1 Myr in GADGET's units) with 0.1 kpc softening. Direct
// summation agrees with the CPU engine to float32's summation error over 60,000 terms (1.1e-4 of
// the largest change on llvmpipe); the tree within its opening angle's force error (5e-4 there).
TEST_F(FormatsGl, TheTwoGalaxyFileStepsOnEveryEngineAsOnTheCpu) {
  const Snapshot sample =
      readSnapshotFile(std::filesystem::path(NBODY_GADGET_SAMPLES) / "galaxy_littleendian.dat");
  ASSERT_EQ(sample.state.size(), 60000u);
  ASSERT_TRUE(sample.units);
  const StepParams params{1e-4, 0.1, sample.units->gravity};
  const Method& euler = *findMethod("euler");
  CpuEngine cpu;
  const State reference = test::advance(cpu, sample.state, euler, params, 1);
  EXPECT_TRUE(sameIdentity(reference, sample.state));
  for (const std::string& name : test::gpuEngineNames()) {
    auto engine = test::makeEngine(name);
    const State stepped = test::advance(*engine, sample.state, euler, params, 1);
    const double tolerance = findEngine(name)->approximate ? 5e-3 : 3e-4;
    const double error = velocityChangeError(sample.state, stepped, reference);
    std::printf(
        "%s engine, two galaxies: velocity change error %.2e of the largest (tolerance %.0e)\n",
        name.c_str(), error, tolerance);
    EXPECT_LE(error, tolerance) << name;
    EXPECT_TRUE(sameIdentity(stepped, sample.state)) << name;
    EXPECT_TRUE(sameMasses(stepped, sample.state)) << name;
  }
}

// Bodies whose IDs run backwards and whose components alternate, each of its own mass: a body
// that an engine returned in another place would show in its ID, component or mass.
State shuffledIdentities(std::size_t bodies) {
  State state = findScene("galaxies")->generate(bodies, 4);
  for (std::size_t i = 0; i < bodies; ++i) {
    state.id[i] = (1ull << 33) + 3 * (bodies - i);
    state.component[i] = std::uint8_t(i % kComponentCount);
    state.positionMass[i].w = float(1.0 + 0.001 * double(i)) / float(bodies);
  }
  return state;
}

TEST_F(FormatsGl, IdsAndComponentsFollowEveryBodyThroughEveryEngineAndMethod) {
  const State start = shuffledIdentities(1500);
  const StepParams params{2e-3, 0.05, 1.0};
  for (const std::string& engineName : test::gpuEngineNames())
    for (const std::string methodName : {"leapfrog", "rk4"}) {
      const Method& method = *findMethod(methodName);
      CpuEngine cpu;
      const State reference = test::advance(cpu, start, method, params, 5);
      auto engine = test::makeExactEngine(engineName);
      const State stepped = test::advance(*engine, start, method, params, 5);
      EXPECT_TRUE(sameIdentity(stepped, start)) << engineName << " " << methodName;
      EXPECT_TRUE(sameMasses(stepped, start)) << engineName << " " << methodName;
      EXPECT_LE(test::compareStates(stepped, reference).maxPosition, 1e-4)
          << engineName << " " << methodName;
    }
}

TEST_F(FormatsGl, TheTreeEngineInItsOwnSettingsKeepsTheUploadOrder) {
  const State start = shuffledIdentities(4096);
  auto tree = test::makeEngine("tree");
  CpuEngine cpu;
  const StepParams params{2e-3, 0.05, 1.0};
  const State stepped = test::advance(*tree, start, *findMethod("leapfrog"), params, 3);
  const State reference = test::advance(cpu, start, *findMethod("leapfrog"), params, 3);
  EXPECT_TRUE(sameIdentity(stepped, start));
  EXPECT_TRUE(sameMasses(stepped, start));
  EXPECT_LE(test::compareStates(stepped, reference).maxPosition,
            1e-3);  // the tree's force error, 3 steps
}

TEST_F(FormatsGl, AnEngineSwitchCarriesIdsAndComponents) {
  const State start = shuffledIdentities(700);
  std::vector<std::string> names = test::gpuEngineNames();
  names.push_back("cpu");
  for (const std::string& from : names)
    for (const std::string& to : names) {
      auto first = test::makeEngine(from);
      first->upload(start);
      first->step(*findMethod("rk2"), StepParams{1e-3, 0.05, 1.0}, 2);
      auto second = test::makeEngine(to);
      second->upload(first->download());
      EXPECT_TRUE(sameIdentity(second->download(), start)) << from << " -> " << to;
    }
}

// The real program: a run of the galaxies scene on the tree engine, stopped at step 5 and
// continued from its .nbody and from its GADGET HDF5 snapshot, ends with the bits of the run
// that went on, IDs and components included.
TEST_F(FormatsGl, ARestartFromNbodyOrHdf5GivesTheUninterruptedRunsBits) {
  ScratchFolder scratch("formats-restart");
  const std::string run =
      "simulate --engine tree --scene galaxies -n 2000 --method leapfrog --dt 0.002 -q ";
  const auto full = test::runNbody(run + "--steps 10 --snapshot-every 5 --snapshot-path " +
                                       (scratch / "s-{step}.nbody").string() + " -o " +
                                       (scratch / "full.nbody").string(),
                                   scratch);
  ASSERT_EQ(full.exitCode, 0) << full.err;
  const auto series = test::runNbody(run + "--steps 5 --snapshot-every 5 --snapshot-path " +
                                         (scratch / "h-{step}.hdf5").string() + " -o /dev/null",
                                     scratch);
  ASSERT_EQ(series.exitCode, 0) << series.err;
  const Snapshot reference = readSnapshotFile(scratch / "full.nbody");
  for (const std::string input : {"s-000000005.nbody", "h-000000005.hdf5"}) {
    const auto resumed = test::runNbody(
        "simulate --engine tree --method leapfrog --dt 0.002 -q --input " +
            (scratch / input).string() + " --steps 5 -o " + (scratch / "resumed.nbody").string(),
        scratch);
    ASSERT_EQ(resumed.exitCode, 0) << resumed.err;
    const Snapshot again = readSnapshotFile(scratch / "resumed.nbody");
    EXPECT_TRUE(test::sameBits(again.state, reference.state)) << input;
    EXPECT_EQ(again.time, reference.time) << input;
    EXPECT_FALSE(hasDefaultIdentity(again.state)) << input;  // the two galaxies' components
  }
}

}  // namespace
}  // namespace nbody
