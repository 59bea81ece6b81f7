// The command line as a user meets it: bad input is refused with one line and no output file, and
// CSV states round-trip exactly. (The same for the GPU engine: tests/gl/cli_gl_test.cpp.)

#include <gtest/gtest.h>

#include <limits>

#include "engines/state_check.h"
#include "gl/shader_program.h"
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
void PrintTo(const BadArguments& bad, std::ostream* out) { *out << bad.arguments; }

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
    ::testing::Values(
        BadArguments{"--method leapfrog-ish", "--method"},
        BadArguments{"--engine quantum", "--engine"}, BadArguments{"--bodies 0", "--bodies"},
        BadArguments{"--bodies -4", "--bodies"}, BadArguments{"--dt 0", "--dt"},
        BadArguments{"--dt -0.5", "--dt"}, BadArguments{"--dt nan", "--dt"},
        BadArguments{"--dt inf", "--dt"}, BadArguments{"--softening -1", "--softening"},
        BadArguments{"--scene teapot", "--scene"}, BadArguments{"--steps -1", "--steps"},
        BadArguments{"--input /nonexistent/ic.csv", "--input"},
        BadArguments{"--no-such-flag", "no-such-flag"},
        BadArguments{"--eccentricity 1", "--eccentricity"},
        BadArguments{"--eccentricity -0.1", "--eccentricity"},
        BadArguments{"--snapshot-every 0", "--snapshot-every"},
        BadArguments{"--snapshot-every 5 --snapshot-path s.nbody", "{step}"},
        BadArguments{"--snapshot-path s-{step}.nbody", "--snapshot-every"},
        BadArguments{"--diagnostics-every 5", "--diagnostics"},
        BadArguments{"--diagnostics d.csv --diagnostics-every 0", "--diagnostics-every"}));

class ShotRefuses : public ::testing::TestWithParam<BadArguments> {};

// Usage errors are found before any OpenGL context is made, so this needs none.
TEST_P(ShotRefuses, WithOneLineExitCodeTwoAndNoPicture) {
  ScratchFolder scratch("shot-refuses");
  const auto output = scratch / "out.png";
  const auto result = runNbody(
      "shot --bodies 8 --steps 0 -o " + output.string() + " " + GetParam().arguments, scratch);
  EXPECT_EQ(result.exitCode, 2) << result.err;
  EXPECT_EQ(test::lineCount(result.err), 1u) << result.err;
  EXPECT_NE(result.err.find(GetParam().expectedInMessage), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(output));
}

INSTANTIATE_TEST_SUITE_P(
    UsageErrors, ShotRefuses,
    ::testing::Values(
        BadArguments{"--camera sideways", "--camera"}, BadArguments{"--camera 10,95", "PITCH"},
        BadArguments{"--camera 10,20,0", "DISTANCE"}, BadArguments{"--colormap jet", "--colormap"},
        BadArguments{"--color-by temperature", "--color-by"},
        BadArguments{"--color-range 2,1", "LOW must be below HIGH"},
        BadArguments{"--color-scale sqrt", "--color-scale"},
        BadArguments{"--color-scale log --color-range 0,2",
                     "a log --color-scale needs LOW above 0"},
        BadArguments{"--color-by lz --color-scale log", "--color-by lz changes sign"},
        BadArguments{"--hide-components 6", "expected components 0 to 5"},
        BadArguments{"--hide-components 1,,2", "expected components 0 to 5"},
        BadArguments{"--background 1,0", "--background"},
        BadArguments{"--background 0,0,2", "[0, 1]"},
        BadArguments{"--point-size 0", "--point-size"},
        BadArguments{"--brightness -1", "--brightness"}, BadArguments{"--width 0", "--width"},
        BadArguments{"--height 20000", "--height"}));

// docs/robustness.md: every bad CSV a user can hand in, refused with one line naming the line and
// the problem, exit 1, no output file.
struct BadCsv {
  std::string name, content, expectedInMessage;
};

class SimulateRefusesCsv : public ::testing::TestWithParam<BadCsv> {};

TEST_P(SimulateRefusesCsv, WithOneLineNamingTheProblemAndNoOutput) {
  ScratchFolder scratch("bad-csv");
  std::ofstream(scratch / "ic.csv") << GetParam().content;
  const auto output = scratch / "out.csv";
  const auto result = runNbody(
      "simulate --engine cpu --input " + (scratch / "ic.csv").string() + " -o " + output.string(),
      scratch);
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_EQ(test::lineCount(result.err), 1u) << result.err;
  EXPECT_NE(result.err.find(GetParam().expectedInMessage), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(output));
}

INSTANTIATE_TEST_SUITE_P(
    BadInputs, SimulateRefusesCsv,
    ::testing::Values(
        BadCsv{"WrongHeader", "x,y,z,mass,vx,vy\n1,2,3,4,5,6\n",
               "ic.csv:1: the header must be exactly"},
        BadCsv{"MissingColumn", "x,y,z,mass,vx,vy,vz\n1,2,3,4,5,6\n",
               "ic.csv:2: 6 columns, expected 7"},
        BadCsv{"ExtraColumn", "x,y,z,mass,vx,vy,vz\n1,2,3,4,5,6,7,8\n",
               "ic.csv:2: more than 7 columns"},
        BadCsv{"NotANumber", "x,y,z,mass,vx,vy,vz\n1,2,three,4,5,6,7\n",
               "ic.csv:2: column z is not a number"},
        BadCsv{"NaN", "x,y,z,mass,vx,vy,vz\n1,2,nan,4,5,6,7\n", "ic.csv:2: column z is not finite"},
        BadCsv{"Infinity", "x,y,z,mass,vx,vy,vz\n1,2,3,4,inf,6,7\n",
               "ic.csv:2: column vx is not finite"},
        BadCsv{"NegativeMass", "x,y,z,mass,vx,vy,vz\n1,2,3,-4,5,6,7\n", "ic.csv:2: negative mass"},
        BadCsv{"AllMassesZero", "x,y,z,mass,vx,vy,vz\n1,2,3,0,5,6,7\n", "every mass is zero"},
        BadCsv{"NoRows", "x,y,z,mass,vx,vy,vz\n", "no bodies after the header"},
        BadCsv{"Empty", "", "ic.csv:1: the header must be exactly"}),
    [](const auto& param) { return param.param.name; });

TEST(Simulate, MoreBodiesThanMemoryHoldsFailBeforeAnything) {
  ScratchFolder scratch("too-many");
  const auto output = scratch / "out.csv";
  const auto result =
      runNbody("simulate --engine cpu --bodies 1073741824 -o " + output.string(), scratch);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("1073741824 bodies need about"), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(output));
}

TEST(Shaders, AMissingShaderFileIsNamed) {
  try {
    gl::shaderSource("no-such-shader.frag");
    FAIL() << "found a shader that does not exist";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("shaders/no-such-shader.frag"), std::string::npos)
        << e.what();
  }
}

TEST(Shaders, AFolderNamedByNbodyShaderDirStandsInForTheFilesItHas) {
  ScratchFolder scratch("shader-dir");
  std::ofstream(scratch / "force.frag") << "// a variant\n";
  const std::string builtIn(gl::shaderSource("force.frag"));
  ASSERT_EQ(setenv("NBODY_SHADER_DIR", scratch.path().c_str(), 1), 0);
  const std::string variant(gl::shaderSource("force.frag"));
  const std::string other(gl::shaderSource("update.frag"));  // not in the folder: built in
  unsetenv("NBODY_SHADER_DIR");
  EXPECT_EQ(variant, "// a variant\n");
  EXPECT_NE(other.find("void main"), std::string::npos);
  EXPECT_EQ(gl::shaderSource("force.frag"), builtIn);
}

TEST(Simulate, BrokenCsvIsARuntimeErrorNamingTheLine) {
  ScratchFolder scratch("broken-csv");
  std::ofstream(scratch / "ic.csv") << "x,y,z,mass,vx,vy,vz\n0,0,0,1,0,0,0\n1,2,three,1,0,0,0\n";
  const auto output = scratch / "out.csv";
  const auto result = runNbody(
      "simulate --engine cpu --input " + (scratch / "ic.csv").string() + " -o " + output.string(),
      scratch);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("ic.csv:3: column z is not a number"), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(output));
}

TEST(Simulate, UnwritableOutputFailsBeforeAnyWork) {
  ScratchFolder scratch("unwritable");
  const auto result =
      runNbody("simulate --engine cpu --bodies 8 -o /nonexistent-folder/out.csv", scratch);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("cannot write /nonexistent-folder/out.csv"), std::string::npos)
      << result.err;
}

TEST(Simulate, CpuEngineRoundTripsACsvWithZeroSteps) {
  ScratchFolder scratch("roundtrip-cpu");
  const auto first = scratch / "first.csv", second = scratch / "second.csv";
  ASSERT_EQ(runNbody("simulate --engine cpu --scene plummer --bodies 300 --seed 9 --steps 0 -o " +
                         first.string(),
                     scratch)
                .exitCode,
            0);
  ASSERT_EQ(runNbody("simulate --engine cpu --input " + first.string() + " --steps 0 -o " +
                         second.string(),
                     scratch)
                .exitCode,
            0);
  EXPECT_EQ(test::readWholeFile(first), test::readWholeFile(second));
  // And the file holds the scene's float32 state bit for bit.
  const State written = readStateCsvFile(first.string());
  const State scene = findScene("plummer")->generate(300, 9);
  EXPECT_EQ(written.positionMass, scene.positionMass);
  EXPECT_EQ(written.velocity, scene.velocity);
}

TEST(NonFiniteCheck, FindsTheFirstBodyWithANanOrInfinity) {
  State state = findScene("plummer")->generate(10, 1);
  EXPECT_FALSE(firstNonFiniteBody(state));
  state.velocity[7].y = std::numeric_limits<float>::infinity();
  state.positionMass[4].w = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(firstNonFiniteBody(state), std::optional<std::size_t>(4));
}

TEST(Help, EveryCommandHasIt) {
  ScratchFolder scratch("help");
  for (const std::string command :
       {"", "run ", "simulate ", "bench ", "engines ", "shot ", "compare "}) {
    const auto result = runNbody(command + "--help", scratch);
    EXPECT_EQ(result.exitCode, 0) << command;
    EXPECT_NE(result.out.find("--"), std::string::npos) << command;
  }
}

}  // namespace
}  // namespace nbody
