// bench --json summarises how well each method conserved energy and momentum over its runs.

#include <gtest/gtest.h>

#include <regex>

#include "diagnostics/diagnostics.h"
#include "physics/scenes.h"
#include "support/cli_runner.h"

namespace nbody {
namespace {

std::vector<double> numbersNamed(const std::string& json, const std::string& key) {
  std::vector<double> values;
  const std::regex field("\"" + key + "\": ([-+0-9.eE]+)");
  for (auto it = std::sregex_iterator(json.begin(), json.end(), field);
       it != std::sregex_iterator(); ++it)
    values.push_back(std::stod((*it)[1]));
  return values;
}

TEST(BenchJson, HasEachMethodsEnergyDrift) {
  test::ScratchFolder scratch("bench-conservation");
  const auto json = scratch / "r.json";
  const auto result = test::runNbody(
      "bench --engine cpu --method euler,rk4 --bodies 200 --dt 0.01 "
      "--steps 4 --repetitions 2 --json " +
          json.string(),
      scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const std::string text = test::readWholeFile(json);
  const auto before = numbersNamed(text, "energy_before");
  const auto after = numbersNamed(text, "energy_after");
  const auto drift = numbersNamed(text, "relative_energy_drift");
  ASSERT_EQ(before.size(), 2u) << text;
  ASSERT_EQ(after.size(), 2u) << text;
  ASSERT_EQ(drift.size(), 2u) << text;
  EXPECT_EQ(numbersNamed(text, "momentum_drift").size(), 2u);
  EXPECT_EQ(numbersNamed(text, "angular_momentum_drift").size(), 2u);
  // Both start from the same scene, whose energy the CPU diagnostics give to the last bit.
  StepParams defaults;
  const double initial =
      computeDiagnostics(findScene("plummer")->generate(200, 1), defaults).total();
  EXPECT_EQ(before[0], initial);
  EXPECT_EQ(before[1], initial);
  for (int k = 0; k < 2; ++k)
    EXPECT_DOUBLE_EQ(drift[k], (after[k] - before[k]) / std::abs(before[k]));
  EXPECT_LT(std::abs(drift[1]), std::abs(drift[0])) << "rk4 must drift less than euler";
  EXPECT_GT(std::abs(drift[0]), 0.0);
}

// nbody runs with glibc's malloc asking for transparent huge pages unless GLIBC_TUNABLES says
// otherwise (main executes itself again: util/huge_pages.h), and bench's JSON says what the run
// had: the tunable added to what the user gave, or the user's own choice kept.
TEST(BenchJson, SaysHowGlibcsMallocAskedForHugePages) {
  test::ScratchFolder scratch("bench-huge-pages");
  const auto tunablesOf = [&](const std::string& environment) {
    const auto json = scratch / "r.json";
    const auto result = test::runNbody(
        "bench --engine cpu --bodies 16 --steps 1 --repetitions 1 --json " + json.string(), scratch,
        environment);
    EXPECT_EQ(result.exitCode, 0) << result.err;
    const std::string text = test::readWholeFile(json);
    std::smatch found;
    if (!std::regex_search(text, found, std::regex("\"malloc_tunables\": (\"[^\"]*\"|null)")))
      return "no malloc_tunables in " + text;
    return found[1].str();
  };
  EXPECT_EQ(tunablesOf("env -u GLIBC_TUNABLES"), "\"glibc.malloc.hugetlb=1\"");
  EXPECT_EQ(tunablesOf("GLIBC_TUNABLES=glibc.malloc.arena_max=2"),
            "\"glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1\"");
  EXPECT_EQ(tunablesOf("GLIBC_TUNABLES=glibc.malloc.hugetlb=0"), "\"glibc.malloc.hugetlb=0\"");
}

}  // namespace
}  // namespace nbody
