// Bit-exact continuation on the GPU engines: their state is exactly the float32 State, so a
// snapshot after K steps, loaded into a fresh engine and advanced L steps, gives the very bits of
// K + L uninterrupted steps. In process and through the command line.

#include <sstream>

#include "engines/registry.h"
#include "gl/gl_test.h"
#include "io/binary_snapshot.h"
#include "io/snapshot.h"
#include "support/cli_runner.h"
#include "support/test_support.h"

namespace nbody {
namespace {

using test::GlTest;
using test::makeEngine;
using test::runNbody;
using test::ScratchFolder;
using test::Variant;

class GpuSnapshot : public GlTest,
                    public ::testing::WithParamInterface<std::pair<std::string, Variant>> {};

// Every method: an FSAL one (leapfrog) starts the resumed run by evaluating the force the
// uninterrupted run reused, which must give the same bits. Each engine's default variant, and the
// ones whose single pass stores the force to reuse (one body per fragment; one compute slice).
TEST_P(GpuSnapshot, ContinuesBitForBitAfterABinaryRoundTripWithEveryMethod) {
  const auto& [engineName, variant] = GetParam();
  const State start = findScene("galaxies")->generate(500, 6);
  StepParams params;
  params.dt = 0.003;
  params.softening = 0.02;
  for (const Method& method : allMethods()) {
    const State expected =
        test::advance(*makeEngine(engineName, variant), start, method, params, 12);

    Snapshot saved;
    saved.state = test::advance(*makeEngine(engineName, variant), start, method, params, 5);
    saved.step = 5;
    saved.settings = RunSettings{method.name, params, 6};
    std::ostringstream file;
    writeBinarySnapshot(saved, file);
    const Snapshot loaded = parseBinarySnapshot(file.str(), "in memory");
    const State resumed =
        test::advance(*makeEngine(engineName, variant), loaded.state, method, params, 7);
    EXPECT_TRUE(test::sameBits(resumed, expected)) << method.name;
    EXPECT_FALSE(test::sameBits(loaded.state, expected)) << "the runs must have moved the bodies";
  }
}

// Every GPU engine's default variant, and the single-pass variants of the two direct engines.
std::vector<std::pair<std::string, Variant>> snapshotVariants() {
  std::vector<std::pair<std::string, Variant>> variants;
  for (const std::string& engine : test::gpuEngineNames()) variants.push_back({engine, Variant{}});
  variants.push_back({"fragment", Variant{{"bodies-per-fragment", "1"}, {"slices", "1"}}});
  variants.push_back({"compute", Variant{{"slices", "1"}}});
  return variants;
}
INSTANTIATE_TEST_SUITE_P(GpuEngines, GpuSnapshot, ::testing::ValuesIn(snapshotVariants()));

// Leapfrog keeps its last force where the engine's variant stores accelerations: a variant that
// stores them elsewhere must evaluate it afresh, as a new engine of that variant does.
TEST_F(GlTest, LeapfrogEvaluatesItsForceAfreshAfterAVariantChange) {
  const State start = findScene("plummer")->generate(700, 3);
  const Method& leapfrog = *findMethod("leapfrog");
  StepParams params;
  auto switched = makeEngine("fragment", {{"bodies-per-fragment", "4"}});
  const State halfway = test::advance(*switched, start, leapfrog, params, 4);
  switched->setOption("bodies-per-fragment", "2");
  switched->step(leapfrog, params, 4);
  const State expected = test::advance(*makeEngine("fragment", {{"bodies-per-fragment", "2"}}),
                                       halfway, leapfrog, params, 4);
  EXPECT_TRUE(test::sameBits(switched->download(), expected));
}

TEST(FragmentSnapshotCommandLine, ResumedRunWritesTheSameFileAsAnUninterruptedOne) {
  ScratchFolder scratch("resume-fragment");
  const std::string run =
      "simulate --engine fragment --scene disk --bodies 300 --method rk2 "
      "--dt 0.002 --softening 0.03 ";
  ASSERT_EQ(
      runNbody(run + "--steps 9 --snapshot-every 4 --snapshot-path " +
                   (scratch / "s-{step}.nbody").string() + " -o " + (scratch / "full.csv").string(),
               scratch)
          .exitCode,
      0);
  // Only the snapshot says which method, dt and softening to go on with.
  const auto resumed =
      runNbody("simulate --engine fragment --input " + (scratch / "s-000000004.nbody").string() +
                   " --steps 5 -o " + (scratch / "resumed.csv").string(),
               scratch);
  ASSERT_EQ(resumed.exitCode, 0) << resumed.err;
  EXPECT_EQ(test::readWholeFile(scratch / "resumed.csv"),
            test::readWholeFile(scratch / "full.csv"));
}

}  // namespace
}  // namespace nbody
