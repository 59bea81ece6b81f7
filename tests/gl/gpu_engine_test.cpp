// Every GPU engine, in every variant it offers, against the double-precision CPU engine and
// analytic results.

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>

#include "app/run/stepping.h"
#include "diagnostics/engine_diagnostics.h"
#include "engines/compute_engine.h"
#include "engines/cpu_engine.h"
#include "engines/gpu_capacity.h"
#include "engines/registry.h"
#include "engines/stage_textures.h"
#include "engines/state_check.h"
#include "gl/gl_test.h"
#include "gl/state_access.h"
#include "gl/state_readback.h"
#include "io/csv.h"
#include "io/output_file.h"
#include "support/test_support.h"

namespace nbody {
namespace {

using test::GlTest;
using test::makeEngine;
using test::Variant;

// Where the CPU reference of a problem is kept between processes (ctest runs every variant in a
// process of its own): beside the test binary, named after the problem and the binary's size and
// time, so a rebuilt binary (a changed CPU engine, say) computes it anew.
std::string builtStamp() {
  const std::filesystem::path binary = std::filesystem::read_symlink("/proc/self/exe");
  return "-" + std::to_string(std::filesystem::file_size(binary)) + "-" +
         std::to_string(std::filesystem::last_write_time(binary).time_since_epoch().count()) +
         ".csv";
}

std::filesystem::path keptReferencesFolder() {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path() / "cpu-references";
}

// Removes what earlier builds of the test binary kept. Files of this build stay, and so do
// temporary files (*.csv.tmp-PID) that a process of this build may be writing.
void forgetOtherBuildsReferences() {
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(keptReferencesFolder(), ignored)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".csv") && !name.ends_with(builtStamp()))
      std::filesystem::remove(entry.path(), ignored);
  }
}

// The CPU engine's state after 10 steps from `start` with `params` (the same for every call of one
// `bodies` and `method`), computed once per problem and shared by all variants.
const State& cpuReference(std::size_t bodies, const std::string& method, const State& start,
                          const StepParams& params) {
  static std::map<std::pair<std::size_t, std::string>, State> cache;
  const auto key = std::make_pair(bodies, method);
  if (cache.count(key)) return cache[key];
  const std::filesystem::path kept =
      keptReferencesFolder() / (method + "-N" + std::to_string(bodies) + builtStamp());
  if (std::filesystem::exists(kept)) return cache[key] = readStateCsvFile(kept.string());
  CpuEngine cpu;
  cache[key] = test::advance(cpu, start, *findMethod(method), params, 10);
  std::filesystem::create_directories(kept.parent_path());
  forgetOtherBuildsReferences();
  OutputFile file(kept);  // whole or not at all, also when processes race
  writeStateCsv(cache[key], file.stream());
  file.commit();
  return cache[key];
}

// Every variant of `engine` that the tests cover: all combinations of the given choices.
std::vector<Variant> combinations(const std::vector<EngineOption>& options) {
  std::vector<Variant> variants{{}};
  for (const EngineOption& option : options) {
    std::vector<Variant> extended;
    for (const Variant& partial : variants)
      for (const std::string& choice : option.choices) {
        extended.push_back(partial);
        extended.back().emplace_back(option.name, choice);
      }
    variants = extended;
  }
  return variants;
}

std::string variantName(const Variant& variant) {
  std::string name;
  for (const auto& [option, value] : variant) name += "_" + option + "_" + value;
  for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

// Which methods a case steps with. A method is a tableau that the same stage machinery runs in
// every variant, and a variant changes only the force pass, so each engine's default runs every
// method, and its other variants run the two that use that machinery most differently: RK4 (four
// stages, each from the step's start) and leapfrog (the force reused from the step before). At
// N = 8192, where llvmpipe takes ~1 s a force pass, leapfrog alone checks the layouts there.
enum class Methods { every, rk4AndLeapfrog, leapfrog };

std::vector<Method> methodsOf(Methods which) {
  if (which == Methods::every) return allMethods();
  if (which == Methods::leapfrog) return {*findMethod("leapfrog")};
  return {*findMethod("rk4"), *findMethod("leapfrog")};
}

std::string methodsName(Methods which) {
  const char* names[] = {"every_method", "rk4_and_leapfrog", "leapfrog"};
  return names[static_cast<int>(which)];
}

class GpuVersusCpu
    : public GlTest,
      public ::testing::WithParamInterface<std::tuple<std::string, Variant, std::size_t, Methods>> {
};

TEST_P(GpuVersusCpu, EveryBodyAgreesAfterTenSteps) {
  const auto& [engineName, variant, bodies, methods] = GetParam();
  const State start = findScene("plummer")->generate(bodies, 3);
  StepParams params;
  params.dt = 1e-3;
  params.softening = 0.05;
  auto engine = makeEngine(engineName, variant);
  for (const Method& method : methodsOf(methods)) {
    const auto d = test::compareStates(test::advance(*engine, start, method, params, 10),
                                       cpuReference(bodies, method.name, start, params));
    // Tolerance: positions reach |x| ~ 6 (float32 spacing 5e-7 there) and each step rounds them
    // again; the force sums of N float32 terms add relative errors ~1e-6 that dt = 1e-3 damps.
    // Observed on llvmpipe: up to 1.5e-6 in position, 5e-7 in velocity. A wrong sign, a wrong
    // tableau coefficient, a skipped or doubled body moves results by more than 1e-4.
    EXPECT_LT(d.maxPosition, 1e-5) << method.name << ", body " << d.worstPositionBody;
    EXPECT_LT(d.maxVelocity, 1e-5) << method.name << ", body " << d.worstVelocityBody;
  }
}

std::string gpuVersusCpuName(const ::testing::TestParamInfo<GpuVersusCpu::ParamType>& param) {
  return std::get<0>(param.param) + variantName(std::get<1>(param.param)) + "_N" +
         std::to_string(std::get<2>(param.param)) + "_" + methodsName(std::get<3>(param.param));
}

// The fragment engine: every unroll block x bodies per fragment (one slice), and the j-loop in
// slices for one and four bodies per fragment, at N = 1000 (a square, 32 x 32) and N = 4099
// (prime: 72 x 57 texels with 5 padding bodies; no unroll block divides it).
std::vector<Variant> fragmentVariants() {
  std::vector<Variant> variants =
      combinations({{"unroll", "", {"1x1", "2x2", "4x4", "8x8"}, ""},
                    {"bodies-per-fragment", "", {"1", "2", "4", "8"}, ""},
                    {"slices", "", {"1"}, ""}});
  for (const char* bodies : {"1", "4"})
    for (const char* slices : {"2", "4"})
      variants.push_back({{"unroll", "4x4"}, {"bodies-per-fragment", bodies}, {"slices", slices}});
  return variants;
}
INSTANTIATE_TEST_SUITE_P(Fragment, GpuVersusCpu,
                         ::testing::Combine(::testing::Values("fragment"),
                                            ::testing::ValuesIn(fragmentVariants()),
                                            ::testing::Values(std::size_t{1000}, std::size_t{4099}),
                                            ::testing::Values(Methods::rk4AndLeapfrog)),
                         gpuVersusCpuName);
// And the default variant at N = 4096, a whole 64 x 64 texture with no padding at all.
INSTANTIATE_TEST_SUITE_P(FragmentAt4096, GpuVersusCpu,
                         ::testing::Combine(::testing::Values("fragment"),
                                            ::testing::Values(Variant{}),
                                            ::testing::Values(std::size_t{4096}),
                                            ::testing::Values(Methods::every)),
                         gpuVersusCpuName);

// The compute engine: fused (one slice) and split j-loops, tiles and bodies per thread that do
// and do not divide N, at N = 1000 and 4099; the automatic choice and a wide split at N = 8192
// (fewer there, with leapfrog alone: on llvmpipe each costs ~15 s).
INSTANTIATE_TEST_SUITE_P(
    Compute, GpuVersusCpu,
    ::testing::Combine(
        ::testing::Values("compute"),
        ::testing::Values(
            Variant{{"group-size", "64"}, {"slices", "1"}, {"bodies-per-thread", "1"}},
            Variant{{"group-size", "128"}, {"slices", "4"}, {"bodies-per-thread", "2"}},
            Variant{{"group-size", "256"}, {"slices", "16"}, {"bodies-per-thread", "1"}},
            Variant{{"group-size", "512"}, {"slices", "2"}, {"bodies-per-thread", "4"}},
            Variant{{"group-size", "64"}, {"slices", "64"}, {"bodies-per-thread", "4"}},
            Variant{{"slices", "auto"}}),
        ::testing::Values(std::size_t{1000}, std::size_t{4099}),
        ::testing::Values(Methods::rk4AndLeapfrog)),
    gpuVersusCpuName);
INSTANTIATE_TEST_SUITE_P(ComputeAt8192, GpuVersusCpu,
                         ::testing::Combine(::testing::Values("compute"),
                                            ::testing::Values(Variant{{"slices", "auto"}},
                                                              Variant{{"group-size", "256"},
                                                                      {"slices", "16"},
                                                                      {"bodies-per-thread", "2"}}),
                                            ::testing::Values(std::size_t{8192}),
                                            ::testing::Values(Methods::leapfrog)),
                         gpuVersusCpuName);

// Every GPU engine the registry offers, in its default variant or, for an approximate one, in the
// settings that make it sum directly (the engines' own lists above go through their variants).
std::vector<GpuVersusCpu::ParamType> registryCases() {
  std::vector<GpuVersusCpu::ParamType> cases;
  for (const std::string& name : test::gpuEngineNames()) {
    const EngineSettings& exact = findEngine(name)->exactSettings;
    for (const std::size_t bodies : {std::size_t{1000}, std::size_t{4099}})
      cases.emplace_back(name, Variant(exact.begin(), exact.end()), bodies, Methods::every);
  }
  return cases;
}
INSTANTIATE_TEST_SUITE_P(Registry, GpuVersusCpu, ::testing::ValuesIn(registryCases()),
                         gpuVersusCpuName);

class GpuEngineTest : public GlTest, public ::testing::WithParamInterface<std::string> {};

// Halving dt divides the error by 2^order. In float32 the error must stay well above rounding
// (~1e-6 here), so each method gets the coarsest steps that are still near its asymptotic regime,
// and the order is checked against the nominal one and against the CPU engine's on the same runs.
TEST_P(GpuEngineTest, ConvergenceOrderMatchesEachMethod) {
  const double e = 0.1;
  CpuEngine cpu(1);
  const State reference = test::keplerHalfOrbit(cpu, *findMethod("rk4"), e, 20000);
  auto gpu = test::makeExactEngine(GetParam());
  for (const auto& [name, steps] : {std::pair{"euler", 640},
                                    {"rk2", 40},
                                    {"rk4", 10},
                                    {"symplectic-euler", 640},
                                    {"leapfrog", 40}}) {
    const Method& method = *findMethod(name);
    const double gpuOrder = test::measuredOrder(*gpu, method, e, steps, reference);
    const double cpuOrder = test::measuredOrder(cpu, method, e, steps, reference);
    EXPECT_NEAR(gpuOrder, method.order, 0.4) << name;
    EXPECT_NEAR(gpuOrder, cpuOrder, 0.1) << name;
  }
}

// The energy error a method makes is a property of the method, not of the precision: float32 on
// the GPU gives the error of the double-precision CPU engine within a factor of 2. dt is chosen per
// method so that its error is far above float32 rounding (~1e-7 of E). The largest error over the
// run is compared, not the last: leapfrog's error oscillates, and one sample near a zero of it
// would make the ratio depend on rounding.
TEST_P(GpuEngineTest, EachMethodsEnergyErrorIsThatOfTheDoublePrecisionRun) {
  const State start = findScene("plummer")->generate(512, 4);
  StepParams params;
  params.softening = 0.02;
  auto gpu = test::makeExactEngine(GetParam());
  CpuEngine cpu;
  EngineDiagnostics gpuDiagnostics, cpuDiagnostics;
  for (const auto& [name, dt] : {std::pair{"euler", 0.01},
                                 {"rk2", 0.02},
                                 {"rk4", 0.08},
                                 {"symplectic-euler", 0.01},
                                 {"leapfrog", 0.02}}) {
    params.dt = dt;
    const Method& method = *findMethod(name);  // clang 14 cannot capture a structured binding
    const auto energyError = [&](Engine& engine, EngineDiagnostics& diagnostics) {
      engine.upload(start);
      const Diagnostics before = diagnostics.measure(engine, params);
      double largest = 0.0;
      for (int step = 0; step < 50; step += 10) {
        engine.step(method, params, 10);
        largest = std::max(
            largest, std::abs(relativeEnergyError(before, diagnostics.measure(engine, params))));
      }
      return largest;
    };
    const double inFloat = energyError(*gpu, gpuDiagnostics);
    const double inDouble = energyError(cpu, cpuDiagnostics);
    EXPECT_GT(inFloat, 0.5 * inDouble) << name;
    EXPECT_LT(inFloat, 2.0 * inDouble) << name;
  }
}

// With epsilon = 0 the j == i term must add exactly zero, not NaN: a lone body (with padding
// texels beside it) moves in a straight line. So with an epsilon whose 1/eps^3 overflows float32
// (1e-15: 1e45), where the CPU engine's double sum gives zero too.
TEST_P(GpuEngineTest, SelfInteractionAddsExactlyZeroWithoutSoftening) {
  State lone;
  lone.positionMass = {glm::vec4(0.5f, -0.25f, 2.0f, 1.0f)};
  lone.velocity = {glm::vec4(1.0f, 0.5f, -2.0f, 0.0f)};
  StepParams params;
  params.dt = 0.125;  // exact in binary, so the straight line is exact in float32 too
  auto gpu = makeEngine(GetParam());
  for (const double softening : {0.0, 1e-15}) {
    params.softening = softening;
    for (const Method& method : allMethods()) {
      const State end = test::advance(*gpu, lone, method, params, 4);
      EXPECT_EQ(end.positionMass[0], glm::vec4(1.0f, 0.0f, 1.0f, 1.0f))
          << method.name << ", eps " << softening;
      EXPECT_EQ(end.velocity[0], lone.velocity[0]) << method.name << ", eps " << softening;
    }
  }
}

TEST_P(GpuEngineTest, WithoutSofteningAgreesWithCpuAtAnAwkwardSize) {
  // 7 bodies in an 8 x 1 texture: one padding texel at the origin, where no body sits.
  const State start = findScene("uniform-sphere")->generate(7, 11);
  StepParams params;
  params.softening = 0.0;
  params.dt = 1e-3;
  auto gpu = test::makeExactEngine(GetParam());
  CpuEngine cpu;
  const auto d = test::compareStates(test::advance(*gpu, start, *findMethod("rk4"), params, 10),
                                     test::advance(cpu, start, *findMethod("rk4"), params, 10));
  EXPECT_LT(d.maxPosition, 1e-5);
  EXPECT_LT(d.maxVelocity, 1e-5);
}

// 4104 and 4099 bodies take the same 72 x 57 textures: after the larger problem, the padding
// texels of the smaller one must be massless again in every texture a force pass reads.
TEST_P(GpuEngineTest, FewerBodiesInTheSameTexturesLeaveNothingOfTheFormerOnes) {
  StepParams params;
  const Method& method = *findMethod("rk2");
  auto used = makeEngine(GetParam());
  test::advance(*used, findScene("plummer")->generate(4104, 1), method, params, 3);
  const State smaller = findScene("plummer")->generate(4099, 2);
  const State afterLarger = test::advance(*used, smaller, method, params, 2);
  EXPECT_TRUE(test::sameBits(afterLarger,
                             test::advance(*makeEngine(GetParam()), smaller, method, params, 2)));
}

// The stage textures are allocated for the stages the methods stepped so far use: methods of more
// stages taken up mid-run (Euler, RK4 adding three stages' textures, leapfrog reusing its force)
// give the bits of an engine that had every stage's textures before its first step.
TEST_P(GpuEngineTest, StagesAddedMidRunChangeNoBit) {
  StepParams params;
  const State start = findScene("plummer")->generate(1500, 4);
  const auto run = [&](Engine& engine) {
    engine.upload(start);
    for (const char* name : {"euler", "rk4", "leapfrog", "euler", "rk2"})
      engine.step(*findMethod(name), params, 2);
    return engine.download();
  };
  auto grown = makeEngine(GetParam());
  auto allAtOnce = makeEngine(GetParam());
  allAtOnce->upload(start);
  allAtOnce->step(*findMethod("rk4"), params, 0);  // no step, but every stage's textures
  EXPECT_TRUE(test::sameBits(run(*grown), run(*allAtOnce)));
}

TEST_P(GpuEngineTest, UploadThenDownloadReturnsTheSameBits) {
  const State start = findScene("plummer")->generate(1000, 5);
  auto gpu = makeEngine(GetParam());
  gpu->upload(start);
  const State back = gpu->download();
  ASSERT_EQ(back.size(), start.size());
  EXPECT_EQ(back.positionMass, start.positionMass);
  EXPECT_EQ(back.velocity, start.velocity);
}

// What a program reading the state every step gets through the pixel-buffer ring (a few steps
// late) is exactly what synchronous downloads give, step by step, from engine `name`.
void expectAsyncReadbackGivesTheSyncStates(const std::string& name) {
  const State start = findScene("plummer")->generate(300, 12);
  StepParams params;
  const Method& rk2 = *findMethod("rk2");
  const int steps = 7;
  auto syncEngine = makeEngine(name), asyncEngine = makeEngine(name);
  std::vector<State> syncStates, asyncStates;
  syncEngine->upload(start);
  asyncEngine->upload(start);
  gl::AsyncStateReadback ring(3);
  for (int s = 0; s < steps; ++s) {
    syncEngine->step(rk2, params);
    syncStates.push_back(syncEngine->download());
    asyncEngine->step(rk2, params);
    if (ring.full()) asyncStates.push_back(ring.takeOldest());
    ring.request(*asyncEngine->gpuState());
  }
  while (ring.pending() > 0) asyncStates.push_back(ring.takeOldest());
  ASSERT_EQ(asyncStates.size(), syncStates.size());
  for (int s = 0; s < steps; ++s) {
    EXPECT_EQ(asyncStates[s].positionMass, syncStates[s].positionMass) << "step " << s + 1;
    EXPECT_EQ(asyncStates[s].velocity, syncStates[s].velocity) << "step " << s + 1;
  }
}

TEST_P(GpuEngineTest, AsyncReadbackReturnsExactlyTheSyncStates) {
  expectAsyncReadbackGivesTheSyncStates(GetParam());
}

// At the GL 4.1 / ES 3.0 subset (gl/level.h), which maps no buffer for good, the ring reads into
// plain memory as each request comes: the same states, in the same order.
class SubsetReadbackTest : public test::GlTest {};

TEST_F(SubsetReadbackTest, AsyncReadbackReturnsExactlyTheSyncStates) {
  const test::GlTargetSet subset("410");
  expectAsyncReadbackGivesTheSyncStates("fragment");
}

// The accelerations an engine reports for accuracy checks are its force evaluation, read back from
// whatever layout it keeps them in (layers, slices), and reading them changes nothing: the state
// and a leapfrog run that follows are those of an engine that was never asked.
TEST_P(GpuEngineTest, CurrentAccelerationsAreItsForceAndChangeNothing) {
  const State start = findScene("plummer")->generate(1000, 7);
  StepParams params;
  params.softening = 0.05;
  params.gravity = 1.5;
  CpuEngine cpu;
  cpu.upload(start);
  const std::vector<glm::dvec3> expected = cpu.currentAccelerations(params);
  double largest = 0.0;
  for (const glm::dvec3& a : expected) largest = std::max(largest, glm::length(a));
  const Method& leapfrog = *findMethod("leapfrog");
  auto asked = test::makeExactEngine(GetParam()), untouched = test::makeExactEngine(GetParam());
  asked->upload(start);
  asked->step(leapfrog, params, 1);  // keeps a force to reuse
  const State before = asked->download();
  const std::vector<glm::dvec3> accelerations = asked->currentAccelerations(params);
  EXPECT_TRUE(test::sameBits(asked->download(), before));
  asked->step(leapfrog, params, 2);
  EXPECT_TRUE(
      test::sameBits(asked->download(), test::advance(*untouched, start, leapfrog, params, 3)));
  cpu.upload(before);
  const std::vector<glm::dvec3> atBefore = cpu.currentAccelerations(params);
  ASSERT_EQ(accelerations.size(), atBefore.size());
  double worst = 0.0;
  for (std::size_t i = 0; i < atBefore.size(); ++i)
    worst = std::max(worst, glm::length(accelerations[i] - atBefore[i]));
  EXPECT_LT(worst, 1e-5 * largest) << "largest |a| " << largest;
}

INSTANTIATE_TEST_SUITE_P(AllGpuEngines, GpuEngineTest, ::testing::ValuesIn(test::gpuEngineNames()));

// Sizes the GPU cannot run are refused by checkCapacity, before any work, with a message that says
// which option to change, instead of failing later (a too tall texture) or silently (a dispatch
// over the work-group limit does nothing).
class GpuCapacityTest : public GlTest {};

// What checkCapacity refused `bodies` with, or "" where it accepted them.
std::string refusalOf(const Engine& engine, std::size_t bodies) {
  try {
    engine.checkCapacity(bodies);
    return "";
  } catch (const std::runtime_error& e) {
    return e.what();
  }
}

TEST_F(GpuCapacityTest, FragmentSlicesThatMakeTheAccelerationTexturesTooTallAreRefused) {
  GLint largest = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &largest);
  const std::size_t side = std::size_t(largest) / 8 + 64;  // the textures' rows: over largest / 8
  const std::size_t bodies = side * side;
  ASSERT_GT(std::size_t(StageTextures::sizeFor(bodies, largest).y) * 8, std::size_t(largest));
  auto engine = makeEngine("fragment");
  engine->setOption("slices", "8");
  const std::string refusal = refusalOf(*engine, bodies);
  EXPECT_NE(refusal.find("choose fewer slices"), std::string::npos)
      << "refusal: '" << refusal << "'";
  engine->setOption("slices", "1");
  // Where the driver stops loops (llvmpipe: a fragment of one slice would loop ~N / 4 times,
  // FragmentLoopsThatPassTheDriversLimitAreRefused), the loops are refused first.
  if (gl::limits().mostLoopIterations > 0) return;
  EXPECT_EQ(refusalOf(*engine, bodies), "");
  // Once those bodies are loaded, asking for 8 slices is a usage error that changes nothing.
  engine->upload(findScene("uniform-sphere")->generate(bodies, 3));
  EXPECT_THROW(engine->setOption("slices", "8"), UsageError);
  EXPECT_EQ(engine->variant(), "unroll=2x2 bodies-per-fragment=4 slices=1");
}

TEST_F(GpuCapacityTest, ComputeDispatchesOverTheWorkGroupLimitAreRefused) {
  GLint maxGroups = 0, largest = 0;
  glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &maxGroups);
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &largest);
  auto engine = makeEngine("compute");
  engine->setOption("group-size", "64");
  engine->setOption("bodies-per-thread", "1");
  // One force-pass work group per 64 bodies. Where the textures cannot hold that many bodies (the
  // H100: 2^31 - 1 groups), the texture check refuses them first.
  const std::size_t tooMany = std::size_t(maxGroups) * 64 + 1;
  const bool texturesHoldThem = tooMany <= std::size_t(largest) * std::size_t(largest);
  const std::string refusal = refusalOf(*engine, tooMany);
  EXPECT_NE(refusal, "") << tooMany << " bodies accepted";
  if (texturesHoldThem) {
    EXPECT_NE(refusal.find("choose a larger group-size"), std::string::npos) << refusal;
    // Half the groups fit, where no loop limit bounds N first (llvmpipe's: its slices' partial
    // sums pass a storage block from ~690K bodies; ComputeSlicesLoopNoFurtherThanTheDriverRuns).
    if (gl::limits().mostLoopIterations == 0) {
      EXPECT_EQ(refusalOf(*engine, std::size_t(maxGroups) * 32), "");
    }
  }
}

TEST_F(GpuCapacityTest, ComputePartialSumsOverOneStorageBlockAreRefused) {
  GLint64 maxBlockBytes = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &maxBlockBytes);
  const std::size_t bodies = std::size_t(maxBlockBytes) / (64 * 16) + 65536;  // 64 slices: over it
  auto engine = makeEngine("compute");
  engine->setOption("slices", "64");
  const std::string refusal = refusalOf(*engine, bodies);
  EXPECT_NE(refusal.find("choose fewer slices"), std::string::npos)
      << "refusal: '" << refusal << "'";
  engine->setOption("slices", "8");  // 8 slices fit, and loop no further than llvmpipe's limit
  EXPECT_EQ(refusalOf(*engine, bodies), "");
}

// Once a state is loaded, an option that would make the layout too large for the GPU is refused
// as a usage error (the window shows it) and the engine keeps its layout.
TEST_F(GpuCapacityTest, ComputeRefusesAnOptionWhoseLayoutTheGpuCannotRun) {
  GLint maxGroups = 0;
  glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &maxGroups);
  GLint64 maxBlockBytes = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &maxBlockBytes);
  // Enough bodies that 64 slices of partial sums overflow one storage block, if memory allows.
  const std::size_t bodies = std::size_t(maxBlockBytes) / (64 * 16) + 65536;
  auto engine = makeEngine("compute");
  engine->setOption("slices", "8");  // fits, and loops no further than llvmpipe's limit
  engine->upload(findScene("uniform-sphere")->generate(bodies, 3));
  const std::string variant = engine->variant();
  EXPECT_THROW(engine->setOption("slices", "64"), UsageError);
  EXPECT_EQ(engine->variant(), variant);
}

// llvmpipe stops an invocation's loops after 65535 iterations in all, silently: a slice of the
// compute engine's j-loop loops once a body. Under that limit (lowered here on any GPU) auto slices
// stay short enough, with the slices of no limit where those are, and a slice too long asked for
// is refused in words.
TEST_F(GpuCapacityTest, ComputeSlicesLoopNoFurtherThanTheDriverRuns) {
  constexpr long long kLimit = 65535;
  const double allowed = double(loopIterationsAllowed(kLimit));
  EXPECT_LT(allowed, double(kLimit));
  for (const std::size_t n : {1000u, 40000u, 57344u, 66048u, 131072u, 1u << 20, 1u << 22})
    for (const bool screening : {false, true})
      for (const int group : {64, 512}) {
        const ComputeEngine::LayoutChoice choice{group, 1, std::nullopt};
        const auto free = ComputeEngine::resolveLayout(n, choice, 16, screening);
        const auto limited = ComputeEngine::resolveLayout(n, choice, 16, screening, kLimit);
        EXPECT_LE(ComputeEngine::sliceLoopIterations(limited.sliceLength), allowed) << n;
        EXPECT_GE(std::size_t(limited.slices) * std::size_t(limited.sliceLength), n) << n;
        if (n <= 40000) {
          EXPECT_EQ(limited.slices, free.slices) << n;  // far under the limit: as before
        }
      }
  gl::Limits lowered = gl::limits();
  lowered.mostLoopIterations = kLimit;
  gl::replaceLimits(lowered);
  auto engine = makeEngine("compute");
  engine->setOption("slices", "1");
  const std::string refusal = refusalOf(*engine, 70000);
  engine->setOption("slices", "2");
  const std::string twoSlices = refusalOf(*engine, 70000);
  gl::forgetLimits();
  EXPECT_NE(refusal.find("past the 65535 this driver runs"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("choose more slices"), std::string::npos) << refusal;
  EXPECT_EQ(twoSlices, "");
}

// A force fragment loops over its slice's rows in unrolled blocks: under llvmpipe's limit (lowered
// here on any GPU) one slice of 1 x 1 texels at 70000 bodies loops past it (its forces were 7%
// off), and is refused; the default 4 slices of 2 x 2 loop a sixteenth of that.
TEST_F(GpuCapacityTest, FragmentLoopsThatPassTheDriversLimitAreRefused) {
  gl::Limits lowered = gl::limits();
  lowered.mostLoopIterations = 65535;
  gl::replaceLimits(lowered);
  auto engine = makeEngine("fragment", {{"slices", "1"}, {"unroll", "1x1"}});
  const std::string oneSlice = refusalOf(*engine, 70000);
  engine->setOption("bodies-per-fragment", "1");  // fused: the same loops
  const std::string fused = refusalOf(*engine, 70000);
  const std::string fewer = refusalOf(*engine, 50000);
  const std::string defaults = refusalOf(*makeEngine("fragment"), 70000);
  gl::forgetLimits();
  for (const std::string& refusal : {oneSlice, fused}) {
    EXPECT_NE(refusal.find("1 slices of unroll 1x1 loop about"), std::string::npos) << refusal;
    EXPECT_NE(refusal.find("choose more slices or a larger unroll"), std::string::npos) << refusal;
  }
  EXPECT_EQ(fewer, "");
  EXPECT_EQ(defaults, "");
}

// The compute engine's forces past 65535 bodies against a double sum: on llvmpipe one slice of
// every body lost the bodies past its loop limit (70000 bodies: median error 0.067, not 1.5e-6).
TEST_F(GpuCapacityTest, ComputeForcesPastLlvmpipesLoopLimitCountEveryBody) {
  const State state = findScene("plummer")->generate(66000, 8);
  StepParams params;
  auto engine = makeEngine("compute");
  engine->upload(state);
  const std::vector<glm::dvec3> gpu = engine->currentAccelerations(params);
  for (std::size_t i = 0; i < state.size(); i += 997) {  // 67 bodies, the last among them
    const glm::dvec3 ri(state.positionMass[i]);
    glm::dvec3 reference(0.0);
    for (std::size_t j = 0; j < state.size(); ++j) {
      const glm::dvec3 d = glm::dvec3(state.positionMass[j]) - ri;
      const double r2 = glm::dot(d, d) + params.softening * params.softening;
      reference += double(state.positionMass[j].w) * d / (r2 * std::sqrt(r2));
    }
    EXPECT_LT(glm::length(gpu[i] - reference), 1e-4 * glm::length(reference)) << "body " << i;
  }
}

// OpenGL promises 65535 work groups in x, and llvmpipe offers no more: past 16.7M bodies a pass of
// one group per 256 bodies goes in rows of groups (gl::dispatchRows). Here the limits are lowered
// to a few groups a row, so that a few thousand bodies take several rows.
class FewGroupsInARowTest : public GlTest {
 protected:
  static constexpr long long kGroupsInARow = 5;
  void TearDown() override {
    gl::forgetLimits();
    GlTest::TearDown();
  }
  static void lowerGroupsInARow() {
    gl::Limits lowered = gl::limits();
    lowered.maxComputeWorkGroupCount[0] = kGroupsInARow;
    gl::replaceLimits(lowered);
  }
};

// Every GPU engine, made under the lowered limits, gives the bits it gives in one row: leapfrog's
// first stage is the update pass; the compute engine's sliced force (1024 bodies a group: 5
// groups) ends in the reduce pass, 20 groups of 256 bodies; the tree's kernels take rows too.
TEST_F(FewGroupsInARowTest, EveryGpuEngineGivesTheBitsOfOneRow) {
  const State start = findScene("plummer")->generate(5000, 6);
  StepParams params;
  const Method& leapfrog = *findMethod("leapfrog");
  const Variant fewForceGroups{{"group-size", "256"}, {"bodies-per-thread", "4"}, {"slices", "2"}};
  for (const std::string& name : test::gpuEngineNames()) {
    const Variant variant = name == "compute" ? fewForceGroups : Variant{};
    const State oneRow = test::advance(*makeEngine(name, variant), start, leapfrog, params, 3);
    lowerGroupsInARow();
    const State inRows = test::advance(*makeEngine(name, variant), start, leapfrog, params, 3);
    gl::forgetLimits();
    EXPECT_TRUE(test::sameBits(inRows, oneRow)) << name;
  }
}

// The check for non-finite values finds a bad body rows past the first (4000: the 16th group).
TEST_F(FewGroupsInARowTest, TheNonFiniteCheckFindsABodyRowsPastTheFirst) {
  State state = findScene("plummer")->generate(5000, 7);
  state.velocity[4000].y = std::numeric_limits<float>::infinity();
  for (const std::string& name : test::gpuEngineNames()) {
    auto engine = makeEngine(name);
    engine->upload(state);
    lowerGroupsInARow();
    EXPECT_EQ(NonFiniteCheck().firstNonFiniteBody(*engine), std::optional<std::size_t>(4000))
        << name;
    gl::forgetLimits();
  }
}

// Past rows of the longest allowed in y too, a dispatch is refused in words, not lost.
TEST_F(FewGroupsInARowTest, MoreGroupsThanRowsHoldAreRefused) {
  gl::Limits lowered = gl::limits();
  lowered.maxComputeWorkGroupCount = {kGroupsInARow, 3, 1};
  EXPECT_THROW(gl::dispatchRows(std::size_t(kGroupsInARow) * 3 + 1, lowered), std::runtime_error);
}

// A pass OpenGL refused leaves the state wrong, finite or not: the run's next check fails, saying
// what OpenGL reported and what the run leaves.
TEST_F(FewGroupsInARowTest, AnOpenGlErrorBetweenChecksFailsTheRun) {
  auto engine = makeEngine("fragment");
  engine->upload(findScene("plummer")->generate(100, 8));
  FiniteWatch watch(0);
  watch.check(*engine, 1, 0.1, [] { return std::string("nothing written"); });
  glEnable(GL_TEXTURE_BINDING_2D);  // no capability: GL_INVALID_ENUM
  gl::takeDebugErrors();            // the error this test causes on purpose
  try {
    watch.check(*engine, 2, 0.2, [] { return std::string("nothing written"); });
    ADD_FAILURE() << "the check passed";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("OpenGL reported GL_INVALID_ENUM between step 1 and step "
                                         "2"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("nothing written"), std::string::npos) << e.what();
  }
}

class EngineSwitchTest : public GlTest {};

// Switching engine mid-run continues the same trajectory: the state moves across exactly, and the
// continuation agrees with an uninterrupted run within the engines' tolerance. Through every GPU
// engine in turn, and back to the first.
TEST_F(EngineSwitchTest, EveryGpuEngineInTurnContinuesTheTrajectory) {
  const State start = findScene("plummer")->generate(1000, 8);
  StepParams params;
  params.softening = 0.05;
  const Method& rk4 = *findMethod("rk4");
  std::vector<std::string> sequence = test::gpuEngineNames();
  sequence.push_back(sequence.front());
  State state = start;
  for (const std::string& name : sequence) {
    auto engine = test::makeExactEngine(name);
    engine->upload(state);
    EXPECT_EQ(engine->download().positionMass, state.positionMass) << name;
    state = test::advance(*engine, state, rk4, params, 5);
  }
  CpuEngine cpu;
  const auto d =
      test::compareStates(state, test::advance(cpu, start, rk4, params, 5 * int(sequence.size())));
  EXPECT_LT(d.maxPosition, 1e-5);
  EXPECT_LT(d.maxVelocity, 1e-5);
}

TEST(StateTextureSize, HoldsEveryBodyWithLessThanOneRowOfPadding) {
  for (std::size_t n : {1u, 2u, 3u, 1000u, 4096u, 4099u, 16384u, 1000003u}) {
    const glm::ivec2 size = StageTextures::sizeFor(n, 16384);
    EXPECT_EQ(size.x % StageTextures::kWidthMultiple, 0) << n;
    EXPECT_GE(std::size_t(size.x) * std::size_t(size.y), n) << n;
    EXPECT_LT(std::size_t(size.x) * std::size_t(size.y) - n, std::size_t(size.x)) << n;
  }
  EXPECT_EQ(StageTextures::sizeFor(16384, 16384), glm::ivec2(128, 128));
  EXPECT_THROW(StageTextures::sizeFor(65, 8), std::invalid_argument);
  EXPECT_THROW(StageTextures::sizeFor(0, 8), std::invalid_argument);
}

TEST(ComputeLayout, AutoSplitsSmallProblemsAndNotLargeOnes) {
  const ComputeEngine::LayoutChoice automatic;
  const auto at16k = ComputeEngine::resolveLayout(16384, automatic, 132);
  EXPECT_EQ(at16k.groupSize, 512);  // the H100's best measured (docs/performance-history.md)
  EXPECT_EQ(at16k.bodiesPerThread, 2);
  EXPECT_EQ(at16k.slices, 16);
  EXPECT_EQ(ComputeEngine::resolveLayout(1 << 20, automatic, 132).slices, 1);
  EXPECT_GT(ComputeEngine::resolveLayout(1024, automatic, 132).slices, 1);
}

// The slices split the sum; the group size (up to the default's) and bodies a thread do not. So
// each of them, and the groups of 256 of the passes that screen for contacts, keep the default's
// slices, and with them its bits (18576 and 20016 texels: the default's tiles are not whole
// tiles of 1024 there).
TEST(ComputeLayout, GroupSizesAndBodiesPerThreadKeepTheDefaultsSlices) {
  for (std::size_t n : {1000u, 4104u, 16384u, 18576u, 20016u, 262144u, 1u << 20})
    for (const int sms : {16, 132}) {
      const auto standard = ComputeEngine::resolveLayout(n, {}, sms);
      const auto screened = ComputeEngine::resolveLayout(n, {}, sms, true);
      EXPECT_EQ(screened.groupSize, n >= 16384 ? 256 : standard.groupSize) << n;
      EXPECT_EQ(screened.bodiesPerThread, standard.bodiesPerThread) << n;
      std::vector<ComputeEngine::Layout> others{screened};
      for (const int group : {64, 128, 256, 512})
        for (const int bodies : {1, 2, 4})
          if (group <= standard.groupSize)
            others.push_back(ComputeEngine::resolveLayout(n, {group, bodies, std::nullopt}, sms));
      for (const ComputeEngine::Layout& layout : others) {
        EXPECT_EQ(layout.slices, standard.slices) << n << " " << layout.groupSize;
        EXPECT_EQ(layout.sliceLength, standard.sliceLength) << n << " " << layout.groupSize;
      }
    }
}

TEST(ComputeLayout, SlicesAreWholeTilesThatCoverEveryBody) {
  for (std::size_t n : {8u, 1000u, 4104u, 16384u})
    for (const int slices : {1, 3, 16, 64}) {
      const auto layout = ComputeEngine::resolveLayout(n, {128, 1, slices}, 132);
      EXPECT_EQ(layout.sliceLength % 128, 0);
      EXPECT_GE(std::size_t(layout.slices) * std::size_t(layout.sliceLength), n);
      EXPECT_LT(std::size_t(layout.slices - 1) * std::size_t(layout.sliceLength), n);
    }
}

}  // namespace
}  // namespace nbody
