// The command line as a user meets it: bad input is refused with one line and no output file, and
// CSV states round-trip exactly. (The same for the GPU engine: tests/gl/cli_gl_test.cpp.)

#include <gtest/gtest.h>

#include "io/csv.h"
#include "physics/scenes.h"
#include "support/cli_runner.h"

namespace nbody {
namespace {

using test::runNbody;
using test::ScratchFolder;

struct BadArguments {
  std::string arguments, expectedInMessage;
};

class SimulateRefuses : public ::testing::TestWithParam<BadArguments> {};

TEST_P(SimulateRefuses, WithOneLineExitCodeTwoAndNoOutputFile) {
  ScratchFolder scratch("refuses");
  const auto output = scratch / "out.csv";
  const auto result = runNbody("simulate --engine cpu --bodies 8 --steps 1 -o " + output.string() +
                                   " " + GetParam().arguments,
                               scratch);
  EXPECT_EQ(result.exitCode, 2) << result.err;
  EXPECT_EQ(test::lineCount(result.err), 1u) << result.err;
  EXPECT_NE(result.err.find(GetParam().expectedInMessage), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(output));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(scratch.path()), {}), 2)
      << "only the captured stdout and stderr may exist";
}

INSTANTIATE_TEST_SUITE_P(
    UsageErrors, SimulateRefuses,
    ::testing::Values(BadArguments{"--method leapfrog-ish", "--method"},
                      BadArguments{"--engine quantum", "--engine"},
                      BadArguments{"--bodies 0", "--bodies"},
                      BadArguments{"--bodies -4", "--bodies"},
                      BadArguments{"--dt 0", "--dt"},
                      BadArguments{"--dt -0.5", "--dt"},
                      BadArguments{"--dt nan", "--dt"},
                      BadArguments{"--dt inf", "--dt"},
                      BadArguments{"--softening -1", "--softening"},
                      BadArguments{"--scene teapot", "--scene"},
                      BadArguments{"--steps -1", "--steps"},
                      BadArguments{"--input /nonexistent/ic.csv", "--input"},
                      BadArguments{"--no-such-flag", "no-such-flag"},
                      BadArguments{"--eccentricity 1", "--eccentricity"},
                      BadArguments{"--eccentricity -0.1", "--eccentricity"},
                      BadArguments{"--snapshot-every 0", "--snapshot-every"},
                      BadArguments{"--snapshot-every 5 --snapshot-path s.nbody", "{step}"},
                      BadArguments{"--snapshot-path s-{step}.nbody", "--snapshot-every"},
                      BadArguments{"--diagnostics-every 5", "--diagnostics"},
                      BadArguments{"--diagnostics d.csv --diagnostics-every 0", "--diagnostics-every"}));

TEST(Simulate, BrokenCsvIsARuntimeErrorNamingTheLine) {
  ScratchFolder scratch("broken-csv");
  std::ofstream(scratch / "ic.csv") << "x,y,z,mass,vx,vy,vz\n0,0,0,1,0,0,0\n1,2,three,1,0,0,0\n";
  const auto output = scratch / "out.csv";
  const auto result = runNbody("simulate --engine cpu --input " + (scratch / "ic.csv").string() +
                                   " -o " + output.string(),
                               scratch);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("ic.csv:3: column z is not a number"), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(output));
}

TEST(Simulate, UnwritableOutputFailsBeforeAnyWork) {
  ScratchFolder scratch("unwritable");
  const auto result = runNbody("simulate --engine cpu --bodies 8 -o /nonexistent-folder/out.csv", scratch);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("cannot write /nonexistent-folder/out.csv"), std::string::npos) << result.err;
}

TEST(Simulate, CpuEngineRoundTripsACsvWithZeroSteps) {
  ScratchFolder scratch("roundtrip-cpu");
  const auto first = scratch / "first.csv", second = scratch / "second.csv";
  ASSERT_EQ(runNbody("simulate --engine cpu --scene plummer --bodies 300 --seed 9 --steps 0 -o " +
                         first.string(), scratch).exitCode, 0);
  ASSERT_EQ(runNbody("simulate --engine cpu --input " + first.string() + " --steps 0 -o " +
                         second.string(), scratch).exitCode, 0);
  EXPECT_EQ(test::readWholeFile(first), test::readWholeFile(second));
  // And the file holds the scene's float32 state bit for bit.
  const State written = readStateCsvFile(first.string());
  const State scene = findScene("plummer")->generate(300, 9);
  EXPECT_EQ(written.positionMass, scene.positionMass);
  EXPECT_EQ(written.velocity, scene.velocity);
}

TEST(Help, EveryCommandHasIt) {
  ScratchFolder scratch("help");
  for (const std::string command : {"", "simulate ", "bench "}) {
    const auto result = runNbody(command + "--help", scratch);
    EXPECT_EQ(result.exitCode, 0) << command;
    EXPECT_NE(result.out.find("--"), std::string::npos) << command;
  }
}

}  // namespace
}  // namespace nbody
