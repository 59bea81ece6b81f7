// Golden images: pictures `nbody shot` makes (the same options and code, in this process) compared
// with the pictures in assets/golden/ under each case's thresholds (NVIDIA's own where a case
// gives them). The cases, their thresholds and
// the reasons for them are in assets/golden/cases.ini; tools/regenerate_references.py remakes the
// pictures on purpose. On failure the actual picture and a picture of the differences are written
// into the build folder, and the test names them.

#include <algorithm>
#include <filesystem>
#include <memory>

#include "app/commands/compare_command.h"
#include "app/commands/shot_command.h"
#include "engines/registry.h"
#include "gl/gl_test.h"
#include "io/png.h"
#include "render/image_compare.h"
#include "support/case_file.h"

namespace nbody {
namespace {

using test::GlTest;
using test::TestCase;

const std::filesystem::path kGoldenFolder =
    std::filesystem::path(NBODY_SOURCE_DIR) / "assets/golden";
const std::filesystem::path kFailureFolder =
    std::filesystem::path(NBODY_BINARY_DIR) / "golden-failures";

// Options as the command line reads them: the same parser as `nbody shot` and `nbody compare`.
template <typename Options, typename AddOptions>
Options parsedOptions(const std::string& arguments, AddOptions addOptions) {
  CLI::App app;
  Options options;
  addOptions(app, options);
  std::string line = arguments;
  std::replace(line.begin(), line.end(), '\n', ' ');
  app.parse(line, false);
  return options;
}

ShotOptions shotOptions(const TestCase& golden) {
  return parsedOptions<ShotOptions>("shot " + golden.at("shot"), [](CLI::App& app, ShotOptions& o) {
    addShotOptions(*app.add_subcommand("shot"), o);
  });
}

// A case may give other thresholds for NVIDIA's driver (`compare-nvidia`, with `why-nvidia`),
// measured on the H200; llvmpipe, where the pictures were made, keeps `compare`.
std::string thresholdKey(const TestCase& golden, const std::string& renderer,
                         const std::string& key) {
  const bool nvidia = renderer.find("NVIDIA") != std::string::npos;
  return nvidia && golden.values.count(key + "-nvidia") ? key + "-nvidia" : key;
}

CompareThresholds thresholds(const TestCase& golden, const std::string& renderer) {
  return parsedOptions<CompareThresholds>(golden.at(thresholdKey(golden, renderer, "compare")),
                                          addCompareThresholdOptions);
}

class GoldenImage : public GlTest, public ::testing::WithParamInterface<TestCase> {};

TEST_P(GoldenImage, MatchesWithinItsThresholds) {
  const TestCase& golden = GetParam();
  ShotOptions options = shotOptions(golden);
  options.quiet = true;
  const std::string& renderer = context()->info().renderer;
  const CompareThresholds limits = thresholds(golden, renderer);
  const std::filesystem::path expectedPath = kGoldenFolder / (golden.name + ".png");
  ASSERT_TRUE(std::filesystem::exists(expectedPath))
      << expectedPath << " is missing: make it with tools/regenerate_references.py --goldens "
      << golden.name;

  const std::unique_ptr<Engine> engine =
      createEngine(options.run.choice.engine, options.run.choice.engineSettings);
  const Image actual = takeShot(*engine, options);
  const Image expected = readPng(expectedPath);
  ASSERT_EQ(actual.width, expected.width) << "the case's size differs from the golden picture's";
  ASSERT_EQ(actual.height, expected.height) << "the case's size differs from the golden picture's";
  const ImageDifference difference = compareImages(expected, actual, limits.maxDelta);

  const auto actualPath = kFailureFolder / (golden.name + ".actual.png");
  const auto diffPath = kFailureFolder / (golden.name + ".diff.png");
  if (withinThresholds(difference, limits)) {
    std::filesystem::remove(actualPath);  // a stale picture from an earlier failure would mislead
    std::filesystem::remove(diffPath);
    return;
  }
  std::filesystem::create_directories(kFailureFolder);
  writePng(actual, actualPath);
  writePng(differenceImage(expected, actual, limits.maxDelta), diffPath);
  ADD_FAILURE() << "the picture of case " << golden.name << " differs from " << expectedPath
                << " (renderer: " << renderer << "; the golden pictures were made on llvmpipe)\n"
                << describeDifference(difference, limits) << "actual picture: " << actualPath
                << "\ndifferences:    " << diffPath
                << " (red: beyond --max-delta, yellow: within it)\nthe case: " << golden.at("shot")
                << "\nthresholds: " << golden.at(thresholdKey(golden, renderer, "compare"))
                << "\nwhy these thresholds: " << golden.at(thresholdKey(golden, renderer, "why"))
                << "\nIf the change is intended: tools/regenerate_references.py --goldens "
                << golden.name;
}

std::string testName(const ::testing::TestParamInfo<TestCase>& golden) {
  std::string name = golden.param.name;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// The thresholds a renderer gets: NVIDIA's own where the case has them, `compare` otherwise.
TEST(GoldenThresholds, NvidiasOwnWhereTheCaseHasThemElseTheCommonOnes) {
  const TestCase both{"both", {{"compare", "--max-delta 2"}, {"compare-nvidia", "--max-delta 3"}}};
  const TestCase common{"common", {{"compare", "--max-delta 2"}}};
  EXPECT_EQ(thresholds(both, "NVIDIA H200/PCIe/SSE2").maxDelta, 3);
  EXPECT_EQ(thresholds(both, "llvmpipe (LLVM 15.0.6, 256 bits)").maxDelta, 2);
  EXPECT_EQ(thresholds(common, "NVIDIA H200/PCIe/SSE2").maxDelta, 2);
}

INSTANTIATE_TEST_SUITE_P(Cases, GoldenImage,
                         ::testing::ValuesIn(test::readCaseFile(kGoldenFolder / "cases.ini")),
                         testName);

}  // namespace
}  // namespace nbody
