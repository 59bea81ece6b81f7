// The GPU reduction against the double-precision CPU diagnostics of the same float32 state.
//
// Tolerances. Mass, kinetic energy, momentum, angular momentum and centre of mass are sums of
// per-body terms the GPU forms in double from the float32 state, as the CPU does (fused or not:
// an ulp a term); both sum them exactly, the GPU to a grid of 2^-95 of the largest, so they agree
// to ~1 ulp of the sum of the terms' magnitudes; 1e-12 of that scale is allowed. The potential's
// O(N^2) pair terms 1/sqrt(r^2 + eps^2) are float32 on the GPU (difference, squares, inversesqrt: a
// few roundings, under 5e-7 relative each) and summed in double. Every term is positive, so the
// sum's relative error is below the largest term's: 1e-6 is allowed (llvmpipe shows ~1e-9). A
// left-out body changes W by ~1e-3 at N = 1000, a self term by far more.

#include "diagnostics/gpu_diagnostics.h"

#include <cmath>

#include "diagnostics/engine_diagnostics.h"
#include "engines/cpu_engine.h"
#include "engines/fragment_engine.h"
#include "gl/gl_test.h"
#include "support/test_support.h"

namespace nbody {
namespace {

using test::GlTest;

// Magnitudes the per-body sums are compared at: sum m |v|, sum m |r| |v|, sum m |r|, over a state.
struct Scales {
  double momentum = 0, angularMomentum = 0, position = 0, kinetic = 0;
};

Scales scalesOf(const State& state) {
  Scales s;
  for (std::size_t i = 0; i < state.size(); ++i) {
    const double m = state.positionMass[i].w;
    const double r = glm::length(glm::dvec3(state.positionMass[i]));
    const double v = glm::length(glm::dvec3(state.velocity[i]));
    s.momentum += m * v;
    s.angularMomentum += m * r * v;
    s.position += m * r;
    s.kinetic += 0.5 * m * v * v;
  }
  return s;
}

void expectAgreement(const Diagnostics& gpu, const Diagnostics& cpu, const State& state) {
  const Scales scale = scalesOf(state);
  constexpr double kSummationOrder = 1e-12, kFloatPairs = 1e-6;
  EXPECT_NEAR(gpu.mass, cpu.mass, kSummationOrder * cpu.mass);
  EXPECT_NEAR(gpu.kinetic, cpu.kinetic, kSummationOrder * scale.kinetic);
  EXPECT_NEAR(gpu.potential, cpu.potential, kFloatPairs * std::abs(cpu.potential));
  EXPECT_LT(glm::length(gpu.momentum - cpu.momentum), kSummationOrder * scale.momentum);
  EXPECT_LT(glm::length(gpu.angularMomentum - cpu.angularMomentum),
            kSummationOrder * scale.angularMomentum);
  EXPECT_LT(glm::length(gpu.centreOfMass - cpu.centreOfMass) * cpu.mass,
            kSummationOrder * scale.position);
  std::printf("potential: GPU %.17g, CPU %.17g, relative difference %.2g\n", gpu.potential,
              cpu.potential, std::abs(gpu.potential / cpu.potential - 1.0));
}

struct DiagnosticsCase {
  std::string scene;
  std::size_t bodies;
  double softening;
};

void PrintTo(const DiagnosticsCase& c, std::ostream* out) {
  *out << c.scene << ", N = " << c.bodies << ", eps = " << c.softening;
}

class GpuDiagnosticsVersusCpu : public GlTest,
                                public ::testing::WithParamInterface<DiagnosticsCase> {};

TEST_P(GpuDiagnosticsVersusCpu, AgreeOnTheEnginesState) {
  const auto& [sceneName, bodies, softening] = GetParam();
  StepParams params;
  params.softening = softening;
  params.gravity = 0.8;
  FragmentEngine engine;
  engine.upload(findScene(sceneName)->generate(bodies, 17));
  engine.step(*findMethod("rk2"), params, 3);  // a state the engine made, not just uploaded
  const State state = engine.download();
  GpuDiagnostics gpu;
  expectAgreement(gpu.measure(*engine.gpuState(), params), computeDiagnostics(state, params),
                  state);
}

INSTANTIATE_TEST_SUITE_P(
    States, GpuDiagnosticsVersusCpu,
    ::testing::Values(DiagnosticsCase{"plummer", 1000, 0.05},  // 32 x 32 texture, 24 padding
                      DiagnosticsCase{"plummer", 4099, 0.01},  // a 65-wide texture's last row
                      DiagnosticsCase{"disk", 2048, 0.0},      // no softening: the j = i test
                      DiagnosticsCase{"galaxies", 777, 0.02},
                      DiagnosticsCase{"figure-eight", 3, 0.0}),  // 2 x 2 texture, one padding
    [](const auto& param) {
      std::string name = param.param.scene + "_N" + std::to_string(param.param.bodies);
      for (char& c : name) c = c == '-' ? '_' : c;
      return name;
    });

class GpuDiagnosticsTest : public GlTest {};

// Small workgroups force several passes over partial sums; the sums are integers, so the bits
// must not depend on them.
TEST_F(GpuDiagnosticsTest, SeveralReductionPassesGiveTheSameSums) {
  const State state = findScene("uniform-sphere")->generate(1000, 2);
  StepParams params;
  FragmentEngine engine;
  engine.upload(state);
  GpuDiagnostics oneGroupPass;  // 256 x 8: 1000 bodies -> 4 sums -> 1
  GpuDiagnostics manyPasses(
      {.groupSize = 4, .elementsPerInvocation = 2});  // -> 250 -> 32 -> 4 -> 1
  const Diagnostics a = oneGroupPass.measure(*engine.gpuState(), params);
  const Diagnostics b = manyPasses.measure(*engine.gpuState(), params);
  EXPECT_EQ(oneGroupPass.lastPassCount(), 3);  // one chunk of pairs and the body passes alone
  EXPECT_EQ(manyPasses.lastPassCount(), 6);    // 1000 bodies -> 125 sums -> 16 -> 2 -> 1
  expectAgreement(a, computeDiagnostics(state, params), state);
  EXPECT_TRUE(test::sameBits(a, b));
}

// Any order of the bodies gives the same sums, bit for bit, but for the potential: each body's
// pairs are added in texel order, so it moves within their rounding (1e-16 a pair). A reduction in
// floating point fails it (round 31's did).
TEST_F(GpuDiagnosticsTest, AnyOrderOfTheBodiesGivesTheSameBits) {
  const State state = findScene("plummer")->generate(3001, 4);
  StepParams params;
  params.softening = 0.01;
  FragmentEngine inOrder, shuffled;
  inOrder.upload(state);
  shuffled.upload(test::shuffledBodies(state, 5));
  GpuDiagnostics gpu;
  const Diagnostics first = gpu.measure(*inOrder.gpuState(), params);
  Diagnostics again = gpu.measure(*shuffled.gpuState(), params);
  EXPECT_NEAR(again.potential, first.potential, 1e-13 * std::abs(first.potential));
  again.potential = first.potential;
  EXPECT_TRUE(test::sameBits(again, first));
  const Diagnostics withoutPairs = gpu.measure(*shuffled.gpuState(), params, false);
  EXPECT_EQ(withoutPairs.potential, 0.0);
  EXPECT_TRUE(test::sameBits(gpu.measure(*inOrder.gpuState(), params, false), withoutPairs));
}

// The pair sums in chunks of texels, each adding to what the last left in the same texel order,
// give the bits of one chunk: a chunk of 1 texel, one that cuts no row evenly, one a row.
TEST_F(GpuDiagnosticsTest, ThePairSumsInChunksGiveTheBitsOfOneChunk) {
  const State state = findScene("plummer")->generate(3001, 6);
  StepParams params;
  params.softening = 0.02;
  FragmentEngine engine;
  engine.upload(state);
  const GpuStateView view = *engine.gpuState();
  const std::size_t texels = std::size_t(view.size.x) * std::size_t(view.size.y);
  GpuDiagnostics oneChunk;
  const Diagnostics whole = oneChunk.measure(view, params);
  for (const int chunk : {1, 97, view.size.x}) {
    GpuDiagnostics chunked({.pairChunkTexels = chunk});
    EXPECT_TRUE(test::sameBits(chunked.measure(view, params), whole)) << chunk << " texels";
    EXPECT_EQ(std::size_t(chunked.lastPassCount() - oneChunk.lastPassCount()),
              (texels + chunk - 1) / std::size_t(chunk) - 1);  // one dispatch a chunk
  }
  expectAgreement(whole, computeDiagnostics(state, params), state);
}

// Each body's pair sum reaches every texel of the state's texture, in chunks: llvmpipe stops an
// invocation's loops after 65535 iterations in all, silently, and one loop over every texel lost
// the rest (W = -0.477 instead of the CPU's -0.514 for a Plummer sphere of 70000). Here a few
// bodies sum over a texture of 90000 massive texels, judged against the same sum in double.
TEST_F(GpuDiagnosticsTest, EachBodysPairSumReachesEveryTexelPastLlvmpipesLoopLimit) {
  const State sources = findScene("uniform-sphere")->generate(90000, 7);
  FragmentEngine engine;
  engine.upload(sources);
  GpuStateView firstFew = *engine.gpuState();
  ASSERT_GT(std::size_t(firstFew.size.x) * std::size_t(firstFew.size.y), 65535u);
  firstFew.bodyCount = 5;  // the bodies; every texel a source
  StepParams params;
  params.softening = 0.05;
  double expected = 0.0;
  for (std::size_t i = 0; i < firstFew.bodyCount; ++i) {
    const glm::dvec3 ri(sources.positionMass[i]);
    double sum = 0.0;
    for (std::size_t j = 0; j < sources.size(); ++j) {
      const glm::dvec3 d = glm::dvec3(sources.positionMass[j]) - ri;
      if (j != i)
        sum += sources.positionMass[j].w /
               std::sqrt(glm::dot(d, d) + params.softening * params.softening);
    }
    expected -= 0.5 * sources.positionMass[i].w * sum;
  }
  const double potential = GpuDiagnostics().measure(firstFew, params).potential;
  EXPECT_NEAR(potential, expected, 1e-6 * std::abs(expected));
}

// Terms of every size and sign, from 2^-60 to 2^40 of each other: the integer sum is exact to 2^-95
// of the largest power of two, so it is the CPU's exact sum (ExactSum) rounded once, up to that
// grid: within 1e-25 of the largest term, where a double reduction is off by ~1e-16 of it.
TEST_F(GpuDiagnosticsTest, SumsAreExactToTheirGrid) {
  State state = findScene("uniform-sphere")->generate(2000, 3);
  for (std::size_t i = 0; i < state.size(); ++i) {
    state.positionMass[i].w = std::ldexp(1.0f + float(i % 7) / 8.0f, int(i % 100) - 60);
    state.velocity[i].x *= i % 2 ? -1.0f : 1.0f;
  }
  FragmentEngine engine;
  engine.upload(state);
  StepParams params;
  const Diagnostics gpu = GpuDiagnostics().measure(*engine.gpuState(), params, false);
  const Diagnostics cpu = computeDiagnostics(state, params);
  double largest = 0.0;
  for (const glm::vec4& p : state.positionMass) largest = std::max(largest, double(p.w));
  EXPECT_NEAR(gpu.mass, cpu.mass, 1e-25 * largest + std::abs(cpu.mass) * 0x1p-52);
  EXPECT_NEAR(gpu.momentum.x, cpu.momentum.x,
              1e-25 * largest * 10 + std::abs(cpu.momentum.x) * 0x1p-52);
  EXPECT_NEAR(gpu.kinetic, cpu.kinetic, 1e-25 * largest * 100 + std::abs(cpu.kinetic) * 0x1p-52);
}

TEST_F(GpuDiagnosticsTest, ALoneBodyHasNoPotentialEnergyEvenWithSoftening) {
  State lone;
  lone.positionMass = {glm::vec4(0.5f, 0.25f, -1.0f, 2.0f)};
  lone.velocity = {glm::vec4(1.0f, -2.0f, 0.5f, 0.0f)};
  StepParams params;
  params.softening = 0.1;
  FragmentEngine engine;
  engine.upload(lone);
  GpuDiagnostics gpu;
  const Diagnostics d = gpu.measure(*engine.gpuState(), params);
  EXPECT_EQ(d.potential, 0.0);
  EXPECT_EQ(d.kinetic, 0.5 * 2.0 * (1.0 + 4.0 + 0.25));
  EXPECT_EQ(d.centreOfMass, glm::dvec3(0.5, 0.25, -1.0));
}

TEST_F(GpuDiagnosticsTest, RejectsAGroupSizeThatIsNotAPowerOfTwo) {
  EXPECT_THROW(GpuDiagnostics({.groupSize = 96, .elementsPerInvocation = 1}),
               std::invalid_argument);
}

// The CPU engine has no GPU state: its diagnostics come from its downloaded state.
TEST_F(GpuDiagnosticsTest, EngineDiagnosticsMeasureEveryEngine) {
  const State state = findScene("shell")->generate(500, 1);
  StepParams params;
  params.softening = 0.03;
  const Diagnostics expected = computeDiagnostics(state, params);
  EngineDiagnostics diagnostics;
  CpuEngine cpu;
  cpu.upload(state);
  const Diagnostics onCpu = diagnostics.measure(cpu, params);
  EXPECT_EQ(onCpu.potential, expected.potential);
  EXPECT_EQ(onCpu.kinetic, expected.kinetic);
  FragmentEngine gpu;
  gpu.upload(state);
  expectAgreement(diagnostics.measure(gpu, params), expected, state);
}

}  // namespace
}  // namespace nbody
