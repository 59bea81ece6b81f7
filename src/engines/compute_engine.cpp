#include "engines/compute_engine.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "engines/compute_passes.h"
#include "engines/gpu_capacity.h"
#include "engines/stage_units.h"

namespace nbody {
namespace {

constexpr int kLargestGroupSize = 512;
// force.comp keeps a tile of GROUP_SIZE vec4 in shared memory: OpenGL promises 32 KB.
static_assert(kLargestGroupSize * 16 <= 32768,
              "a tile must fit the shared memory OpenGL guarantees");
// Its contact screen goes through its own tiles in chunks of 32: every group size offered (64,
// 128, 256 and this) is a multiple of 32.
static_assert(kLargestGroupSize % 32 == 0, "force.comp's chunks of 32 must tile a group");

const KernelSources kForceSplit{
    {{GL_COMPUTE_SHADER,
      {"body_layout.glsl", "gravity.glsl", "external_potential.glsl", "force.comp"}}}};
const KernelSources kForceFused{{{GL_COMPUTE_SHADER,
                                  {"body_layout.glsl", "gravity.glsl", "external_potential.glsl",
                                   "rk_combine.glsl", "compute_store.glsl", "force.comp"}}}};
const KernelSources kReduce{{{GL_COMPUTE_SHADER,
                              {"group_rows.glsl", "body_layout.glsl", "external_potential.glsl",
                               "rk_combine.glsl", "compute_store.glsl", "reduce.comp"}}}};

std::size_t ceilDiv(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

void checkComputeSupport(const gl::Limits& limits) {
  // NBODY_DISABLE_COMPUTE (set, not empty and not 0) lets the tests take the path of a GPU
  // without compute shaders.
  const char* disabled = std::getenv("NBODY_DISABLE_COMPUTE");
  if (disabled != nullptr && *disabled != '\0' && std::string_view(disabled) != "0")
    throw std::runtime_error("compute shaders disabled by NBODY_DISABLE_COMPUTE");
  if (!limits.supports(4, 3))
    throw std::runtime_error(
        "the compute engine needs OpenGL 4.3 compute shaders; this context is " +
        std::to_string(limits.versionMajor) + "." + std::to_string(limits.versionMinor));
  checkStageUnitsFit(limits.maxComputeTextureUnits, "compute");
  if (limits.maxComputeWorkGroupInvocations < kLargestGroupSize)
    throw std::runtime_error("the compute engine needs work groups of " +
                             std::to_string(kLargestGroupSize) + " invocations; this GPU offers " +
                             std::to_string(limits.maxComputeWorkGroupInvocations));
}

// Slices when auto: about two full waves of resident threads (2048 per SM on recent NVIDIA GPUs),
// with at least two whole tiles per slice (docs/performance-history.md has the sweep this follows).
int autoSlices(std::size_t paddedBodies, int groupSize, int bodiesPerThread, int multiprocessors) {
  const std::size_t threads =
      ceilDiv(paddedBodies, std::size_t(groupSize) * std::size_t(bodiesPerThread)) *
      std::size_t(groupSize);
  const std::size_t wanted = std::size_t(multiprocessors) * 2048 * 2;
  int slices = 1;
  while (slices < 64 && threads * std::size_t(slices) * 2 <= wanted &&
         paddedBodies / std::size_t(slices * 2) >= std::size_t(2 * groupSize))
    slices *= 2;
  return slices;
}

}  // namespace

ComputeEngine::ComputeEngine()
    : GpuEngine({{"group-size",
                  "threads per work group, and bodies per shared-memory tile (auto: from N; 256 in "
                  "passes that screen for contacts, from 16384 bodies)",
                  {"auto", "64", "128", "256", std::to_string(kLargestGroupSize)},
                  "auto"},
                 {"slices",
                  "slices of the j-loop run by separate work groups, then added (auto: from N and "
                  "the GPU)",
                  {"auto", "1", "2", "4", "8", "16", "32", "64"},
                  "auto"},
                 {"bodies-per-thread",
                  "bodies each thread accumulates: each tile entry serves them all (auto: from N)",
                  {"auto", "1", "2", "4"},
                  "auto"}}) {
  checkComputeSupport(gl::limits());
  // Multiprocessors of the GPU where the driver says (NVIDIA); otherwise a mid-size guess.
  multiprocessors_ = gl::limits().multiprocessors > 0 ? gl::limits().multiprocessors : 16;
  mostLoopIterations_ = gl::limits().mostLoopIterations;
  optionsChanged();
}

void ComputeEngine::optionsChanged() {
  choice_ = {integerOrAuto(option("group-size")), integerOrAuto(option("bodies-per-thread")),
             integerOrAuto(option("slices"))};
  layout_.reset();
}

double ComputeEngine::sliceLoopIterations(int sliceLength) {
  return double(sliceLength) * (1.0 + 1.0 / 64 + 1.0 / 32);
}

int ComputeEngine::slicesThatLoopAsAllowed(std::size_t paddedBodies, long long mostLoopIterations) {
  if (mostLoopIterations <= 0) return 1;
  // A tile less than allowed: slices are whole tiles, so one may be a tile longer.
  const std::size_t longest =
      std::size_t(double(loopIterationsAllowed(mostLoopIterations)) / sliceLoopIterations(1)) -
      std::size_t(kLargestGroupSize);
  return int(ceilDiv(paddedBodies, longest));
}

ComputeEngine::Layout ComputeEngine::resolveLayout(std::size_t paddedBodies,
                                                   const LayoutChoice& choice, int multiprocessors,
                                                   bool screening, long long mostLoopIterations) {
  // Large N: big groups, and two bodies per thread (fewer shared-memory loads per interaction)
  // below 512K bodies, where they pay (above, the registers they cost do not). Small N: the work
  // is small and what counts is spreading it over many groups (docs/performance-history.md).
  // Passes that screen for contacts take groups of 256 at large N: the screen's min lengthens the
  // loop's chain of dependent instructions, and twice the groups hide it (round 30).
  const bool large = paddedBodies >= 16384;
  const bool twoPerThread = large && paddedBodies < 524288;
  const int defaultGroup = large ? kLargestGroupSize : 128;
  const int defaultBodies = twoPerThread ? 2 : 1;
  Layout layout;
  layout.groupSize = choice.groupSize.value_or(large && screening ? 256 : defaultGroup);
  layout.bodiesPerThread = choice.bodiesPerThread.value_or(defaultBodies);
  // The slices are the default's whatever the group size and bodies a thread: whole default tiles
  // per slice (whole tiles of a larger group), fewer slices when N is too small to give each one.
  const int asked = choice.slices.value_or(
      std::max(autoSlices(paddedBodies, defaultGroup, defaultBodies, multiprocessors),
               slicesThatLoopAsAllowed(paddedBodies, mostLoopIterations)));
  const std::size_t tile = std::size_t(std::max(layout.groupSize, defaultGroup));
  layout.sliceLength = int(ceilDiv(paddedBodies, std::size_t(asked) * tile) * tile);
  layout.slices = int(ceilDiv(paddedBodies, std::size_t(layout.sliceLength)));
  return layout;
}

ComputeEngine::Layout ComputeEngine::layoutFor(std::size_t paddedBodies) const {
  return resolveLayout(paddedBodies, choice_, multiprocessors_, false, mostLoopIterations_);
}

const ComputeEngine::Layout& ComputeEngine::layout() const {
  if (!layout_ || layout_->first != paddedCount())
    layout_ = {paddedCount(), layoutFor(paddedCount())};
  return layout_->second;
}

ComputeEngine::Layout ComputeEngine::passLayout(const StagePass& pass) const {
  const Layout& standard = layout();
  if (contactScreening(pass.params) == 0) return standard;
  const Layout screened =
      resolveLayout(paddedCount(), choice_, multiprocessors_, true, mostLoopIterations_);
  // The same bits either way: where the screened groups would pass this GPU's count, the others.
  const std::size_t groups = ceilDiv(
      paddedCount(), std::size_t(screened.groupSize) * std::size_t(screened.bodiesPerThread));
  return groups <= std::size_t(gl::limits().maxComputeWorkGroupCount[0]) ? screened : standard;
}

void ComputeEngine::checkLayout(std::size_t bodies, glm::ivec2 size) const {
  const std::size_t paddedBodies = std::size_t(size.x) * std::size_t(size.y);
  const Layout layout = layoutFor(paddedBodies);
  const gl::Limits& limits = gl::limits();
  // The force pass's blocks in x, its slices in y (the passes of one group per body go in rows).
  const std::size_t perBlock =
      ceilDiv(paddedBodies, std::size_t(layout.groupSize) * std::size_t(layout.bodiesPerThread));
  if (perBlock > std::size_t(limits.maxComputeWorkGroupCount[0]) ||
      layout.slices > limits.maxComputeWorkGroupCount[1])
    throw std::runtime_error(std::to_string(bodies) + " bodies need " + std::to_string(perBlock) +
                             " x " + std::to_string(layout.slices) +
                             " compute work groups, over this GPU's " +
                             std::to_string(limits.maxComputeWorkGroupCount[0]) + " x " +
                             std::to_string(limits.maxComputeWorkGroupCount[1]) +
                             (layout.slices > limits.maxComputeWorkGroupCount[1]
                                  ? ": choose fewer slices"
                                  : ": choose a larger group-size or more bodies-per-thread"));
  checkLoopsRun(bodies, std::to_string(layout.slices) + " slices",
                sliceLoopIterations(layout.sliceLength), limits, "choose more slices");
  const double partialBytes =
      layout.slices > 1 ? double(layout.slices) * double(paddedBodies) * 16.0 : 0.0;
  // Where the driver's loop limit asks for these slices, fewer would loop too far.
  const bool fewestThatLoop =
      layout.slices <= slicesThatLoopAsAllowed(paddedBodies, limits.mostLoopIterations);
  if (partialBytes > double(limits.maxShaderStorageBlockBytes))
    throw std::runtime_error(
        std::to_string(bodies) + " bodies in " + std::to_string(layout.slices) + " slices need " +
        std::to_string(std::llround(partialBytes / 1e6)) + " MB of partial sums, over the " +
        std::to_string(std::llround(double(limits.maxShaderStorageBlockBytes) / 1e6)) +
        " MB one shader storage block may hold on this GPU: " +
        (fewestThatLoop ? "fewer slices would loop past what this driver runs (llvmpipe): "
                          "choose fewer bodies or another engine"
                        : "choose fewer slices"));
}

void ComputeEngine::beginSteps() {
  const int slices = layout().slices;
  const std::size_t bytes = std::size_t(slices) * paddedCount() * 4 * sizeof(float);
  if (slices > 1 && bytes > partialSumsBytes_) {
    partialSums_ = gl::Buffer::create();
    glNamedBufferStorage(partialSums_.id(), GLsizeiptr(bytes), nullptr, 0);
    partialSumsBytes_ = bytes;
  }
  if (partialSums_) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, partialSums_.id());
}

const StageKernel& ComputeEngine::forceKernel(const StagePass& pass, bool fused) {
  const Layout layout = passLayout(pass);
  gl::Defines defines{{"SOFTENED", softened(pass.params) ? 1 : 0},
                      {"POTENTIAL_COMPONENTS", potentialComponents(pass.params)},
                      {"CONTACTS", contactScreening(pass.params)},
                      {"BODIES", layout.bodiesPerThread},
                      {"GROUP_SIZE", layout.groupSize},
                      {"FUSED", fused ? 1 : 0}};
  if (!fused) return kernels().get(kForceSplit, defines, {});
  defines.add(computeStageDefines(pass, pass.stage, pass.storesForce));
  return kernels().get(kForceFused, defines, {pass.stage, pass.stage});
}

void ComputeEngine::dispatchForce(const StageKernel& force, const StagePass& pass, bool fused) {
  const Layout layout = passLayout(pass);
  force.use(pass.method, pass.params, pass.stage, bodyCount(), paddedCount(), layout.sliceLength);
  bindStageInputs(textures(), {pass.stage, fused ? pass.stage : 0});
  if (fused) bindComputeOutputs(textures(), pass.stage, pass.stageCount());
  const std::size_t block = std::size_t(layout.groupSize) * std::size_t(layout.bodiesPerThread);
  const auto own = ownBodies();
  if (own) force.startAt(own->first);
  const std::size_t bodies = own ? own->size() : paddedCount();
  if (bodies > 0) glDispatchCompute(workGroupsFor(bodies, block), GLuint(layout.slices), 1);
}

std::size_t ComputeEngine::shareGranule() const {
  const Layout& layout = this->layout();
  // Whole blocks of the force pass, and whole groups of the update and reduce passes.
  return std::max(std::size_t(layout.groupSize) * std::size_t(layout.bodiesPerThread),
                  std::size_t(kComputeUpdateGroupSize));
}

bool ComputeEngine::runFusedStage(const StagePass& pass) {
  if (layout().slices != 1) return false;
  dispatchForce(forceKernel(pass, true), pass, true);
  barrierAfterComputeStage();
  return true;
}

void ComputeEngine::evaluateForce(const StagePass& pass) {
  dispatchForce(forceKernel(pass, false), pass, false);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
}

void ComputeEngine::runUpdate(const StagePass& pass) {
  if (pass.force != StageForce::evaluated)
    return runComputeUpdate(kernels(), textures(), pass, bodyCount(), ownBodies());
  // After a split force pass: reduce.comp adds the slices' partial sums and advances each body.
  gl::Defines defines = computeStageDefines(pass, pass.stage, pass.storesForce);
  defines.set("POTENTIAL_COMPONENTS", potentialComponents(pass.params));
  const StageKernel& reduce =
      kernels().get(kReduce, defines.set("SLICES", layout().slices), {pass.stage, pass.stage});
  reduce.use(pass.method, pass.params, pass.stage, bodyCount(), paddedCount());
  bindStageInputs(textures(), {pass.stage, pass.stage});
  bindComputeOutputs(textures(), pass.stage, pass.stageCount());
  dispatchOver(reduce, bodyCount(), kComputeUpdateGroupSize, ownBodies());
  barrierAfterComputeStage();
}

}  // namespace nbody
