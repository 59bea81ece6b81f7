#pragma once
// What the collision tests of every tier ask of the command line: bench --collisions merge makes
// the mergers simulate makes in as many steps.

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace nbody::test {

// bench on `engine` looks at the initial state, then steps 3 warm-up steps and 2 x 100 timed ones:
// its mergers are the lines simulate logs in 203 steps of the same run (a Plummer sphere of 300
// with tens of mergers).
inline void expectBenchMergesWhatSimulateMerges(const std::string& engine,
                                                const ScratchFolder& scratch) {
  const std::string options = " --engine " + engine +
                              " --method leapfrog --dt 0.005 --collisions merge --density 30 "
                              "--scene plummer --bodies 300 --seed 7";
  const auto simulated =
      runNbody("simulate" + options + " --steps 203 -o " + (scratch / "s.csv").string(), scratch);
  ASSERT_EQ(simulated.exitCode, 0) << simulated.err;
  long long merged = 0;
  for (auto at = simulated.err.find("merged into"); at != std::string::npos;
       at = simulated.err.find("merged into", at + 1))
    ++merged;
  ASSERT_GT(merged, 0) << engine;
  const auto json = scratch / "b.json";
  const auto bench =
      runNbody("bench" + options + " --steps 100 --repetitions 2 --json " + json.string(), scratch);
  ASSERT_EQ(bench.exitCode, 0) << bench.err;
  const nlohmann::json result = nlohmann::json::parse(readWholeFile(json))["results"][0];
  EXPECT_EQ(result["collisions"], "merge, density 30") << engine;
  EXPECT_EQ(result["mergers"], merged) << engine;
}

}  // namespace nbody::test
