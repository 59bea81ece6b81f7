// The accuracy report (diagnostics/force_accuracy.h) against a computation of its own: the engine's
// accelerations against the CPU engine's double-precision direct sum, sorted and read off here.

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "diagnostics/force_accuracy.h"
#include "engines/cpu_engine.h"
#include "gl/gl_test.h"
#include "physics/scenes.h"

namespace nbody {
namespace {

using test::GlTest;

// The q-quantile of sorted values, interpolated between order statistics as the report does.
double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * double(sorted.size() - 1);
  const std::size_t below = std::size_t(std::floor(at));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (at - double(below)) * (sorted[above] - sorted[below]);
}

class AccuracyReportTest : public GlTest {};

TEST_F(AccuracyReportTest, AgreesWithTheEnginesForceAgainstTheCpuEngines) {
  const State state = findScene("plummer")->generate(3000, 5);
  StepParams params;
  params.softening = 0.01;
  params.gravity = 0.8;
  CpuEngine cpu;
  cpu.upload(state);
  const std::vector<glm::dvec3> exact = cpu.currentAccelerations(params);
  for (const std::string& name : test::gpuEngineNames()) {
    auto engine = test::makeEngine(name);
    engine->upload(state);
    const std::vector<glm::dvec3> approximate = engine->currentAccelerations(params);
    std::vector<double> errors;
    for (std::size_t i = 0; i < exact.size(); ++i)
      errors.push_back(glm::length(approximate[i] - exact[i]) / glm::length(exact[i]));
    std::sort(errors.begin(), errors.end());
    const AccuracyReport report = measureAccuracy(*engine, params);
    ASSERT_EQ(report.force.samples, exact.size()) << name << ": every body up to 65536";
    // The reference is summed on the GPU in double, in another order than the CPU's: the errors
    // agree to far below the float32 errors they measure.
    const double slack = 1e-9;
    EXPECT_NEAR(report.force.median, quantile(errors, 0.5), slack) << name;
    EXPECT_NEAR(report.force.p99, quantile(errors, 0.99), slack) << name;
    EXPECT_NEAR(report.force.max, errors.back(), slack) << name;
    EXPECT_GT(report.force.max, 0.0) << name << ": float32 forces are not exact";
    EXPECT_EQ(report.potentialError.has_value(), findEngine(name)->approximate) << name;
  }
}

}  // namespace
// bench judges every sampled body up to 2^24 bodies; past it, the reference's pair terms (judged
// bodies x N) stay within 2^40, with at least 1024 bodies judged.
TEST(BenchAccuracySample, KeepsTheReferenceWithinItsTermsPastSixteenMillionBodies) {
  for (const std::size_t bodies : {std::size_t(1) << 20, std::size_t(1) << 24})
    EXPECT_EQ(benchAccuracySample(bodies).bodies, kSampledBodies) << bodies;
  for (const std::size_t bodies : {std::size_t(200'000'000), std::size_t(950'000'000)}) {
    const std::size_t judged = benchAccuracySample(bodies).bodies;
    EXPECT_LE(double(judged) * double(bodies), std::ldexp(1.0, 40)) << bodies;
    EXPECT_GT(double(judged + 1) * double(bodies), std::ldexp(1.0, 40)) << bodies;
  }
  EXPECT_EQ(benchAccuracySample(std::size_t(1) << 40).bodies, 1024u);
}

}  // namespace nbody
