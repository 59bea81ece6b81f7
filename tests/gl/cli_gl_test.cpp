// The command line with the fragment engine (needs OpenGL).

#include <algorithm>
#include <csignal>
#include <regex>
#include <stdexcept>

#include <glad/gl.h>
#include <gtest/gtest.h>

#include "gl/gl_test.h"
#include "io/csv.h"
#include "io/png.h"
#include "physics/method.h"
#include "render/image_compare.h"
#include "support/cli_runner.h"
#include "support/test_support.h"

namespace nbody {
namespace {

using test::runNbody;
using test::ScratchFolder;

TEST(SimulateFragment, RoundTripsACsvWithZeroSteps) {
  ScratchFolder scratch("roundtrip-fragment");
  const auto first = scratch / "first.csv", second = scratch / "second.csv";
  ASSERT_EQ(runNbody("simulate --engine cpu --bodies 77 --steps 0 -o " + first.string(), scratch)
                .exitCode,
            0);
  const auto result = runNbody(
      "simulate --engine fragment --input " + first.string() + " --steps 0 -o " + second.string(),
      scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(test::readWholeFile(first), test::readWholeFile(second));
}

// 500 bodies of a uniform sphere, 20 steps of `method`: `simulate` with `options` (its environment
// `environment`) writes the state the CPU engine writes, to float32's rounding.
void expectSimulateAgreesWithTheCpuEngine(const std::string& method, const std::string& options,
                                          const ScratchFolder& scratch,
                                          const std::string& environment = "") {
  const auto cpu = scratch / "cpu.csv", gpu = scratch / "gpu.csv";
  const std::string common =
      "simulate --scene uniform-sphere --bodies 500 --seed 4 --steps 20 --dt 0.002 "
      "--softening 0.05 --method " +
      method + " ";
  ASSERT_EQ(runNbody(common + "--engine cpu -o " + cpu.string(), scratch).exitCode, 0);
  const auto result = runNbody(common + options + " -o " + gpu.string(), scratch, environment);
  ASSERT_EQ(result.exitCode, 0) << options << ": " << result.err;
  const auto d =
      test::compareStates(readStateCsvFile(cpu.string()), readStateCsvFile(gpu.string()));
  EXPECT_LT(d.maxPosition, 1e-5) << options;  // FragmentVersusCpu's tolerance, for its reasons
  EXPECT_LT(d.maxVelocity, 1e-5) << options;
}

TEST(SimulateFragment, AgreesWithTheCpuEngineThroughFiles) {
  ScratchFolder scratch("fragment-vs-cpu");
  expectSimulateAgreesWithTheCpuEngine("rk2", "--engine fragment", scratch);
}

TEST(BenchFragment, WritesTheFiguresToJson) {
  ScratchFolder scratch("bench-json");
  const auto json = scratch / "r.json";
  const auto result = runNbody(
      "bench --engine fragment --method rk4 --bodies 300 --steps 3 "
      "--repetitions 2 --json " +
          json.string(),
      scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const std::string text = test::readWholeFile(json);
  for (const char* field : {"\"renderer\"", "\"steps_per_second\"", "\"interactions_per_second\"",
                            "\"gflops\"", "\"method\": \"rk4\"", "\"bodies\": 300"})
    EXPECT_NE(text.find(field), std::string::npos) << field << " missing from\n" << text;
  EXPECT_NE(result.out.find("20 flop per interaction"), std::string::npos) << result.out;
}

// The SimulateGpu tests run nbody in a child process; the fixture's context of the same GPU
// tells what that GPU's limits are.
class SimulateGpu : public test::GlTest {};

// What the engine's capacity check says for `bodies` in this process's context of the same GPU,
// or "" where it takes them.
std::string refusalOf(const std::string& engine, std::size_t bodies) {
  try {
    test::makeEngine(engine)->checkCapacity(bodies);
    return "";
  } catch (const std::runtime_error& e) {
    return e.what();
  }
}

// One body more than the largest texture holds, the first check every GPU meets, where the command
// line takes that many (llvmpipe: 16384^2 + 1; NVIDIA: 32768^2 + 1, under the command line's
// largest N, 2^31 - 1). On a GPU whose texture holds more than that, the refusal expected is the
// engine's check in this context (slices, memory, the tree's arrays); an engine such a GPU holds
// that many bodies of has nothing to refuse and is left out.
TEST_F(SimulateGpu, MoreBodiesThanTheGpuHoldsFailBeforeTheSceneIsMade) {
  GLint largest = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &largest);
  const std::size_t textureHolds = std::size_t(largest) * std::size_t(largest);
  const std::size_t commandLineMost = (std::size_t(1) << 31) - 1;  // --bodies' range
  const std::size_t bodies = std::min(textureHolds + 1, commandLineMost);
  const std::string side = std::to_string(largest);
  ScratchFolder scratch("too-many-gpu");
  const auto output = scratch / "out.csv";
  int refused = 0;
  for (const std::string engine : {"fragment", "compute", "tree"}) {
    const std::string expected =
        bodies > textureHolds
            ? std::to_string(bodies) + " bodies do not fit in a " + side + " x " + side + " texture"
            : refusalOf(engine, bodies);
    if (expected.empty()) {
      std::printf("%s takes %zu bodies on this GPU: nothing to refuse\n", engine.c_str(), bodies);
      continue;
    }
    ++refused;
    const auto result = runNbody("simulate --engine " + engine + " --bodies " +
                                     std::to_string(bodies) + " -o " + output.string(),
                                 scratch);
    EXPECT_EQ(result.exitCode, 1) << engine << ": " << result.err;
    // The free memory is the GPU's now: other processes (ctest's others) change it between the two.
    const auto withoutFreeMemory = [](const std::string& text) {
      return std::regex_replace(text, std::regex("has [0-9]+ GB free"), "has N GB free");
    };
    EXPECT_NE(withoutFreeMemory(result.err).find(withoutFreeMemory(expected)), std::string::npos)
        << engine << ": expected '" << expected << "' in\n"
        << result.err;
    EXPECT_FALSE(std::filesystem::exists(output));
  }
  EXPECT_GE(refused, 1) << "no engine refused " << bodies << " bodies";
}

TEST_F(SimulateGpu, AnUnknownEngineOptionValueIsAUsageError) {
  ScratchFolder scratch("bad-option");
  const auto output = scratch / "out.csv";
  const auto result =
      runNbody("simulate --set unroll=3x3 --bodies 8 -o " + output.string(), scratch);
  EXPECT_EQ(result.exitCode, 2) << result.err;
  EXPECT_NE(result.err.find("unroll 3x3 is not one of 1x1, 2x2, 4x4, 8x8"), std::string::npos)
      << result.err;
  EXPECT_FALSE(std::filesystem::exists(output));
}

// No EGL vendor at all (glvnd told to look for one that does not exist): every platform is named
// with what it said.
TEST_F(SimulateGpu, WithoutAnyGpuNamesEveryPlatformTried) {
  ScratchFolder scratch("no-gpu");
  const auto output = scratch / "out.csv";
  const auto result = runNbody("simulate --bodies 8 -o " + output.string(), scratch,
                               "__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent/vendor.json");
  EXPECT_EQ(result.exitCode, 1);
  for (const char* platform :
       {"EGL device platform", "EGL surfaceless platform", "EGL default platform"})
    EXPECT_NE(result.err.find(platform), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(output));
}

TEST(SimulateCompute, FallsBackToTheFragmentEngineWithoutComputeShaders) {
  ScratchFolder scratch("compute-fallback");
  const auto output = scratch / "out.csv";
  const auto result =
      runNbody("simulate --engine compute --bodies 64 --steps 2 -o " + output.string(), scratch,
               "NBODY_DISABLE_COMPUTE=1");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.err.find("the compute engine is not available"), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("simulate: fragment engine"), std::string::npos) << result.err;
  EXPECT_TRUE(std::filesystem::exists(output));
}

// Two unsoftened bodies 1e-15 apart: 1/r^3 overflows float32, so the first step makes velocities
// infinite. The run must stop, name the step and the body, and write nothing.
TEST_F(SimulateGpu, StopsAtANonFiniteStateAndNamesTheBody) {
  ScratchFolder scratch("nonfinite");
  std::ofstream(scratch / "ic.csv") << "x,y,z,mass,vx,vy,vz\n0,0,0,1,0,0,0\n1e-15,0,0,1,0,0,0\n";
  for (const std::string& engine : test::gpuEngineNames()) {
    const auto output = scratch / ("out-" + engine + ".csv");
    const auto result =
        runNbody("simulate --engine " + engine + " --input " + (scratch / "ic.csv").string() +
                     " --softening 0 --steps 5 --check-every 1 -o " + output.string(),
                 scratch);
    EXPECT_EQ(result.exitCode, 1) << engine;
    EXPECT_NE(
        result.err.find("non-finite between step 0 (the last found finite) and step 1: body 0"),
        std::string::npos)
        << engine << ": " << result.err;
    EXPECT_FALSE(std::filesystem::exists(output)) << engine;
  }
}

TEST(Shot, WritesThePictureItWasAskedForTheSameEveryTime) {
  ScratchFolder scratch("shot");
  const std::string common = "shot --bodies 500 --steps 2 --width 96 --height 64 -o ";
  const auto first = runNbody(common + (scratch / "a.png").string(), scratch);
  ASSERT_EQ(first.exitCode, 0) << first.err;
  ASSERT_EQ(runNbody(common + (scratch / "b.png").string(), scratch).exitCode, 0);
  EXPECT_EQ(test::readWholeFile(scratch / "a.png"), test::readWholeFile(scratch / "b.png"));
  const Image image = readPng(scratch / "a.png");
  EXPECT_EQ(image.width, 96);
  EXPECT_EQ(image.height, 64);
  int lit = 0;
  for (std::size_t k = 0; k < image.rgba.size(); k += 4) lit += image.rgba[k] > 0;
  EXPECT_GT(lit, 500) << "the bodies should show";
  EXPECT_NE(first.err.find("renderer"), std::string::npos) << first.err;  // says what drew it
}

// The CPU engine keeps its state off the GPU; shot uploads it and draws it the same way.
TEST(Shot, DrawsTheCpuEnginesStateLikeTheFragmentEngines) {
  ScratchFolder scratch("shot-engines");
  const std::string common =
      "shot --scene uniform-sphere --bodies 300 --steps 3 --width 128 --height 128 ";
  ASSERT_EQ(
      runNbody(common + "--engine fragment -o " + (scratch / "gpu.png").string(), scratch).exitCode,
      0);
  const auto cpu = runNbody(common + "--engine cpu -o " + (scratch / "cpu.png").string(), scratch);
  ASSERT_EQ(cpu.exitCode, 0) << cpu.err;
  const Image gpuImage = readPng(scratch / "gpu.png"), cpuImage = readPng(scratch / "cpu.png");
  // Positions differ by ~1e-7 (float32 against double): at most a level here and there.
  const ImageDifference d = compareImages(gpuImage, cpuImage, 2);
  EXPECT_EQ(d.badPixels, 0u) << describeDifference(d, {2, 255.0, 0.0});
}

// With a standard stream closed, the picture and the movie took its descriptor and the progress
// lines went into them. They must be the same bytes as with the streams open.
TEST(Shot, WithClosedStandardStreamsWritesThePictureAsWithThemOpen) {
  ScratchFolder scratch("shot-closed-streams");
  EXPECT_EQ(test::closedStreamsThatChangeTheOutput(
                "shot --bodies 256 --width 64 --height 48 --out {out}", ".png", scratch),
            "");
}

TEST(Record, WithClosedStandardStreamsWritesTheMovieAsWithThemOpen) {
  ScratchFolder scratch("record-closed-streams");
  EXPECT_EQ(
      test::closedStreamsThatChangeTheOutput(
          "record --bodies 256 --width 64 --height 48 --seconds 0.1 --out {out}", ".mp4", scratch),
      "");
}

TEST(Shot, UnwritableOutputFailsBeforeAnyWorkWithOneLine) {
  ScratchFolder scratch("shot-unwritable");
  const auto result = runNbody("shot --bodies 10 --steps 0 -o /nonexistent-folder/a.png", scratch);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(test::lineCount(result.err), 1u) << result.err;
  EXPECT_NE(result.err.find("cannot write /nonexistent-folder/a.png"), std::string::npos)
      << result.err;
}

// shot takes the engine settings every command takes: a bad one is a usage error, a good one is
// the picture of that variant (the same picture: variants differ in speed, not in what they draw,
// beyond rounding).
TEST(Shot, TakesEngineSettings) {
  ScratchFolder scratch("shot-set");
  const std::string common = "shot --bodies 300 --steps 2 --width 64 --height 64 ";
  const auto bad =
      runNbody(common + "--set unroll=3x3 -o " + (scratch / "bad.png").string(), scratch);
  EXPECT_EQ(bad.exitCode, 2) << bad.err;
  EXPECT_NE(bad.err.find("unroll 3x3 is not one of"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(scratch / "bad.png"));
  const auto good =
      runNbody(common + "--set unroll=4x4 -o " + (scratch / "good.png").string(), scratch);
  ASSERT_EQ(good.exitCode, 0) << good.err;
  EXPECT_NE(good.err.find("unroll=4x4"), std::string::npos) << good.err;
}

// The fragment engine's runs the GLSL tests compare: every method, and rk4 in the fused path (one
// body a fragment, one slice) and at the largest variants.
struct FragmentRun {
  std::string method, settings;
  std::string options() const { return "--engine fragment --method " + method + settings; }
};
std::vector<FragmentRun> fragmentEngineRuns() {
  std::vector<FragmentRun> runs;
  for (const std::string& method : methodNames()) runs.push_back({method, ""});
  runs.push_back({"rk4", " --set bodies-per-fragment=1 --set slices=1"});
  runs.push_back({"rk4", " --set unroll=4x4 --set bodies-per-fragment=8 --set slices=2"});
  return runs;
}

// NBODY_GL_TARGET=410 keeps a run to the subset GL 4.1 core and ES 3.0 share (gl/level.h): objects
// edited while bound (no direct state access), no compute shaders, and the vertex and fragment
// shaders in GLSL 4.10 core, the language of macOS's OpenGL 4.1 (Mesa holds a shader to the
// version it names: it refuses layout(binding) in 4.10, for one). The fragment engine's runs write
// the bytes of the 4.5 runs; shot's pictures (the tone map, trails, the density map, the overlays)
// are those of 4.5 but for the sprites, drawn as points where 4.5 splats them with compute
// shaders: within the points' tolerance of PointSpriteRendererTest.TheSplatDrawsWhatThePointsDraw.
TEST(Glsl410, TheFragmentEngineWritesTheBytesOf450AndShotItsPictures) {
  ScratchFolder scratch("glsl-410");
  std::vector<std::string> runs;
  for (const FragmentRun& run : fragmentEngineRuns())
    runs.push_back("simulate --bodies 300 --steps 5 " + run.options());
  const std::string shot = "shot --bodies 500 --steps 3 --width 96 --height 64 ";
  for (const std::string options : {"", "--trails 0.01", "--show density",
                                    "--color-by component --colormap viridis", "--overlays all"})
    runs.push_back(shot + options);
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const bool picture = runs[k].starts_with("shot");
    std::filesystem::path outputs[2];
    for (int subset : {0, 1}) {
      outputs[subset] = scratch / (std::to_string(k) + (subset ? "-410" : "-450") +
                                   (picture ? ".png" : ".nbody"));
      const auto result = runNbody(runs[k] + " -o " + outputs[subset].string(), scratch,
                                   subset ? "NBODY_GL_TARGET=410" : "NBODY_GL_TARGET=450");
      ASSERT_EQ(result.exitCode, 0) << runs[k] << (subset ? " at 4.1: " : ": ") << result.err;
    }
    if (!picture) {
      EXPECT_TRUE(test::readWholeFile(outputs[0]) == test::readWholeFile(outputs[1])) << runs[k];
      continue;
    }
    const ImageDifference difference = compareImages(readPng(outputs[0]), readPng(outputs[1]), 2);
    EXPECT_LE(difference.maxDelta, 3) << runs[k];
    EXPECT_LE(difference.badFraction(), 0.002) << runs[k];
  }
}

// NBODY_GL_TARGET=300es: WebGL2's GLSL ES 3.00, which indexes arrays of samplers with constants
// alone (Mesa refuses rk_combine.glsl's stages added in a loop) and has no fma (a macro of a * b +
// c stands in, so the runs agree to rounding, not to bits). Each run agrees with the CPU engine's
// as SimulateFragment.AgreesWithTheCpuEngineThroughFiles does.
TEST(GlslEs300, TheFragmentEngineAgreesWithTheCpuEngineForEveryMethodAndVariant) {
  ScratchFolder scratch("glsl-300es");
  for (const FragmentRun& run : fragmentEngineRuns())
    expectSimulateAgreesWithTheCpuEngine(run.method, "--engine fragment" + run.settings, scratch,
                                         "NBODY_GL_TARGET=300es");
}

TEST(Glsl410, AnotherDialectIsRefusedInOneLine) {
  ScratchFolder scratch("glsl-other");
  const auto result =
      runNbody("shot --bodies 20 --width 8 --height 8 -o " + (scratch / "x.png").string(), scratch,
               "NBODY_GL_TARGET=300");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.err, "nbody: error: NBODY_GL_TARGET is '300': it takes 450, 410, 300es\n");
  EXPECT_FALSE(std::filesystem::exists(scratch / "x.png"));
}

// At 4.1 the context counts as 4.1: the engines that need compute shaders are refused in one line,
// or fall back where their entry names a fallback (the compute engine: the fragment engine).
TEST(Glsl410, TheEnginesThatNeedComputeShadersAreRefusedOrFallBack) {
  ScratchFolder scratch("glsl-410-engines");
  const std::string run = "simulate --bodies 100 --steps 2 -o " + (scratch / "x.csv").string();
  const auto tree = runNbody(run + " --engine tree", scratch, "NBODY_GL_TARGET=410");
  EXPECT_EQ(tree.exitCode, 1);
  EXPECT_EQ(tree.err,
            "nbody: error: the tree needs OpenGL 4.3 compute shaders; this context is 4.1\n");
  EXPECT_FALSE(std::filesystem::exists(scratch / "x.csv"));
  const auto compute = runNbody(run + " --engine compute", scratch, "NBODY_GL_TARGET=410");
  EXPECT_EQ(compute.exitCode, 0) << compute.err;
  EXPECT_TRUE(compute.err.starts_with(
      "nbody: the compute engine is not available (the compute engine needs OpenGL 4.3 compute "
      "shaders; this context is 4.1); using the fragment engine\n"))
      << compute.err;
}

// A stop signal ends shot at a step boundary (it advances in chunks of about a quarter second):
// exit 128 + the signal, one line, no picture and no temporary file.
TEST(Shot, StopsOnSigtermLeavingNoPicture) {
  ScratchFolder scratch("shot-stop");
  const auto picture = scratch / "a.png";
  test::RunningNbody run({"shot", "--engine", "cpu", "--bodies", "2048", "--steps", "1000000",
                          "--width", "64", "--height", "64", "-o", picture.string()},
                         scratch);
  ASSERT_TRUE(test::waitUntil([&] {
    return test::readWholeFile(scratch / "stderr.txt").find("steps of dt") != std::string::npos;
  }));
  run.signal(SIGTERM);
  const auto result = run.wait(60);
  EXPECT_EQ(result.exitCode, 143) << result.err;
  EXPECT_NE(result.err.find("nbody: stopped by SIGTERM at step "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("No picture was written"), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(picture));
  EXPECT_EQ(test::temporaryFilesIn(scratch.path()), std::vector<std::string>{});
}

// With several engines each takes the --set options it has; one that none of them has is a
// misspelling, refused before any timing (it used to be dropped silently), and so is a value the
// engine that has the option does not offer.
TEST(BenchGpu, ASettingNoTimedEngineOffersIsAUsageError) {
  ScratchFolder scratch("bench-set");
  const std::string bench =
      "bench --engine cpu,fragment --bodies 64 --steps 1 --repetitions 1 --json " +
      (scratch / "b.json").string() + " ";
  const auto misspelled = runNbody(bench + "--set unrol=4x4", scratch);
  EXPECT_EQ(misspelled.exitCode, 2) << misspelled.err;
  EXPECT_NE(misspelled.err.find(
                "--set unrol=4x4: none of the engines timed (cpu, fragment) has an option unrol"),
            std::string::npos)
      << misspelled.err;
  const auto badValue = runNbody(bench + "--set unroll=3x3", scratch);
  EXPECT_EQ(badValue.exitCode, 2) << badValue.err;
  EXPECT_NE(badValue.err.find("unroll 3x3 is not one of"), std::string::npos) << badValue.err;
  EXPECT_EQ(badValue.out.find("G inter./s"), std::string::npos) << "nothing was timed";
  EXPECT_FALSE(std::filesystem::exists(scratch / "b.json"));
  EXPECT_EQ(runNbody(bench + "--set unroll=4x4", scratch).exitCode, 0);
}

}  // namespace
}  // namespace nbody
