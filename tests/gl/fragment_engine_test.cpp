// The fragment engine against the double-precision CPU engine and analytic results.

#include <cmath>
#include <tuple>

#include "engines/cpu_engine.h"
#include "engines/fragment_engine.h"
#include "gl/gl_test.h"
#include "support/test_support.h"

namespace nbody {
namespace {

using test::GlTest;

class FragmentVersusCpu : public GlTest,
                          public ::testing::WithParamInterface<std::tuple<std::size_t, std::string>> {};

TEST_P(FragmentVersusCpu, EveryBodyAgreesAfterTenSteps) {
  const auto [bodies, methodName] = GetParam();
  const Method& method = *findMethod(methodName);
  const State start = findScene("plummer")->generate(bodies, 3);
  StepParams params;
  params.dt = 1e-3;
  params.softening = 0.05;
  FragmentEngine gpu;
  CpuEngine cpu;
  const State onGpu = test::advance(gpu, start, method, params, 10);
  const State onCpu = test::advance(cpu, start, method, params, 10);
  const auto d = test::compareStates(onGpu, onCpu);
  std::printf("N=%zu %s: max |dx| = %.3g (body %zu), max |dv| = %.3g (body %zu)\n", bodies,
              methodName.c_str(), d.maxPosition, d.worstPositionBody, d.maxVelocity, d.worstVelocityBody);
  // Tolerance: positions reach |x| ~ 6 (float32 spacing 5e-7 there) and each step rounds them
  // again; the force sums of N float32 terms add relative errors ~1e-6 that dt = 1e-3 damps.
  // Observed on llvmpipe: 1.5e-6 in position, 5e-7 in velocity. A wrong sign, a wrong tableau
  // coefficient or a missed body moves results by more than 1e-4.
  EXPECT_LT(d.maxPosition, 1e-5);
  EXPECT_LT(d.maxVelocity, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(AllMethods, FragmentVersusCpu,
                         ::testing::Combine(::testing::Values(std::size_t{1000}, std::size_t{4096}),
                                            ::testing::Values("euler", "rk2", "rk4")),
                         [](const auto& param) {
                           return std::get<1>(param.param) + "_N" + std::to_string(std::get<0>(param.param));
                         });

class FragmentEngineTest : public GlTest {};

// Halving dt divides the error by 2^order. In float32 the error must stay well above rounding
// (~1e-6 here), so each method gets the coarsest steps that are still near its asymptotic regime,
// and the order is checked against the nominal one and against the CPU engine's on the same runs.
TEST_F(FragmentEngineTest, ConvergenceOrderMatchesEachMethod) {
  const double e = 0.1;
  CpuEngine cpu(1);
  const State reference = test::keplerHalfOrbit(cpu, *findMethod("rk4"), e, 20000);
  FragmentEngine gpu;
  for (const auto& [name, steps] : {std::pair{"euler", 640}, {"rk2", 40}, {"rk4", 10}}) {
    const Method& method = *findMethod(name);
    const double gpuOrder = test::measuredOrder(gpu, method, e, steps, reference);
    const double cpuOrder = test::measuredOrder(cpu, method, e, steps, reference);
    EXPECT_NEAR(gpuOrder, method.order, 0.4) << name;
    EXPECT_NEAR(gpuOrder, cpuOrder, 0.1) << name;
  }
}

// With epsilon = 0 the j == i term must add exactly zero, not NaN: a lone body and a body next to
// padding texels move in straight lines.
TEST_F(FragmentEngineTest, SelfInteractionAddsExactlyZeroWithoutSoftening) {
  State lone;
  lone.positionMass = {glm::vec4(0.5f, -0.25f, 2.0f, 1.0f)};
  lone.velocity = {glm::vec4(1.0f, 0.5f, -2.0f, 0.0f)};
  StepParams params;
  params.softening = 0.0;
  params.dt = 0.125;  // exact in binary, so the straight line is exact in float32 too
  FragmentEngine gpu;
  for (const Method& method : allMethods()) {
    const State end = test::advance(gpu, lone, method, params, 4);
    EXPECT_EQ(end.positionMass[0], glm::vec4(1.0f, 0.0f, 1.0f, 1.0f)) << method.name;
    EXPECT_EQ(end.velocity[0], lone.velocity[0]) << method.name;
  }
}

TEST_F(FragmentEngineTest, WithoutSofteningAgreesWithCpuAtAnAwkwardSize) {
  // 7 bodies fill a 3 x 3 texture with 2 padding texels at the origin, where no body sits.
  const State start = findScene("uniform-sphere")->generate(7, 11);
  StepParams params;
  params.softening = 0.0;
  params.dt = 1e-3;
  FragmentEngine gpu;
  CpuEngine cpu;
  const auto d = test::compareStates(test::advance(gpu, start, *findMethod("rk4"), params, 10),
                                     test::advance(cpu, start, *findMethod("rk4"), params, 10));
  EXPECT_LT(d.maxPosition, 1e-5);
  EXPECT_LT(d.maxVelocity, 1e-5);
}

TEST_F(FragmentEngineTest, UploadThenDownloadReturnsTheSameBits) {
  const State start = findScene("plummer")->generate(1000, 5);
  FragmentEngine gpu;
  gpu.upload(start);
  const State back = gpu.download();
  ASSERT_EQ(back.size(), start.size());
  EXPECT_EQ(back.positionMass, start.positionMass);
  EXPECT_EQ(back.velocity, start.velocity);
}

TEST(FragmentTextureSize, HoldsEveryBodyWithLessThanOneRowOfPadding) {
  for (std::size_t n : {1u, 2u, 3u, 1000u, 4096u, 4099u, 16384u, 1000003u}) {
    const glm::ivec2 size = FragmentEngine::textureSizeFor(n, 16384);
    EXPECT_GE(std::size_t(size.x) * std::size_t(size.y), n) << n;
    EXPECT_LT(std::size_t(size.x) * std::size_t(size.y) - n, std::size_t(size.x)) << n;
  }
  EXPECT_EQ(FragmentEngine::textureSizeFor(16384, 16384), glm::ivec2(128, 128));
  EXPECT_THROW(FragmentEngine::textureSizeFor(17, 4), std::invalid_argument);
  EXPECT_THROW(FragmentEngine::textureSizeFor(0, 4), std::invalid_argument);
}

}  // namespace
}  // namespace nbody
