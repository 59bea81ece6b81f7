// State regression: `nbody simulate` with each engine against the final states the CPU engine
// produced when the references were made (assets/regression/: cases.ini says which problems, with
// which tolerance and why; NAME.csv is the reference). Run through the real program, as a user
// would. tools/regenerate_references.py remakes the references on purpose.
//
// Both test tiers compile this file: NBODY_TIER_NEEDS_GL says whether this tier checks the engines
// that need OpenGL (tests/gl) or those that do not (tests/cpu).

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engines/registry.h"
#include "io/csv.h"
#include "support/case_file.h"
#include "support/cli_runner.h"
#include "support/test_support.h"

namespace nbody {
namespace {

using test::ScratchFolder;
using test::TestCase;

const std::filesystem::path& regressionFolder() {
  static const std::filesystem::path folder =
      std::filesystem::path(NBODY_SOURCE_DIR) / "assets/regression";
  return folder;
}

struct RegressionRun {
  TestCase problem;
  std::string engine;
};

void PrintTo(const RegressionRun& run, std::ostream* out) {
  *out << run.engine << " engine, " << run.problem.name;
}

// Every case for every engine that needs OpenGL (needsGl) or does not.
std::vector<RegressionRun> regressionRuns(bool needsGl) {
  std::vector<RegressionRun> runs;
  for (const TestCase& problem : test::readCaseFile(regressionFolder() / "cases.ini"))
    for (const EngineEntry& engine : engineRegistry())
      if (engine.needsGl == needsGl) runs.push_back({problem, engine.name});
  return runs;
}

std::string regressionRunName(const ::testing::TestParamInfo<RegressionRun>& info) {
  std::string name = info.param.engine + "_" + info.param.problem.name;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

std::string vectorText(glm::vec3 v) {
  char text[96];
  std::snprintf(text, sizeof text, "(%.9g, %.9g, %.9g)", v.x, v.y, v.z);
  return text;
}

// Every body, position and velocity, within the case's tolerance (absolute, on the length of the
// difference); the message names the worst body and both values.
void checkAgainstReference(const RegressionRun& run) {
  const TestCase& problem = run.problem;
  const double tolerance = std::stod(problem.at("tolerance"));
  ScratchFolder scratch("regression-" + run.engine + "-" + problem.name);
  const auto output = scratch / "final.csv";
  // An approximate engine (a tree) in the settings that make it sum directly: the references are
  // direct sums, and the tolerances float32's.
  std::string exact;
  for (const auto& [name, value] : findEngine(run.engine)->exactSettings)
    exact += " --set " + name + "=" + value;
  const auto result = test::runNbody("simulate --quiet --engine " + run.engine + exact + " " +
                                         problem.at("simulate") + " --output " + output.string(),
                                     scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const auto referencePath = regressionFolder() / (problem.name + ".csv");
  const State reference = readStateCsvFile(referencePath.string());
  const State actual = readStateCsvFile(output.string());
  ASSERT_EQ(actual.size(), reference.size()) << "body count differs from " << referencePath;
  for (std::size_t i = 0; i < reference.size(); ++i)
    ASSERT_EQ(actual.positionMass[i].w, reference.positionMass[i].w) << "mass of body " << i;

  const test::StateDifference d = test::compareStates(reference, actual);
  const std::string what = run.engine + " engine, " + problem.name + " (" + problem.at("simulate") +
                           ") against " + referencePath.string() + ":\n";
  const std::size_t p = d.worstPositionBody, v = d.worstVelocityBody;
  EXPECT_LE(d.maxPosition, tolerance)
      << what << "body " << p << " is " << d.maxPosition
      << " away from where it should be (tolerance " << tolerance << "): expected "
      << vectorText(reference.positionMass[p]) << ", got " << vectorText(actual.positionMass[p])
      << "\nwhy this tolerance: " << problem.at("why");
  EXPECT_LE(d.maxVelocity, tolerance)
      << what << "the velocity of body " << v << " differs by " << d.maxVelocity << " (tolerance "
      << tolerance << "): expected " << vectorText(reference.velocity[v]) << ", got "
      << vectorText(actual.velocity[v]) << "\nwhy this tolerance: " << problem.at("why");
  std::printf("%s engine, %s: max |dx| = %.3g, max |dv| = %.3g (tolerance %g)\n",
              run.engine.c_str(), problem.name.c_str(), d.maxPosition, d.maxVelocity, tolerance);
}

class StateRegression : public ::testing::TestWithParam<RegressionRun> {};

TEST_P(StateRegression, SimulateAgreesWithTheReference) { checkAgainstReference(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Engines, StateRegression,
                         ::testing::ValuesIn(regressionRuns(NBODY_TIER_NEEDS_GL)),
                         regressionRunName);

}  // namespace
}  // namespace nbody
