#include "engines/compute_engine.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace nbody {
namespace {

constexpr GLenum kSmCountNv = 0x933B;  // GL_SM_COUNT_NV, from GL_NV_shader_thread_group
constexpr int kReduceGroupSize = 256;  // local_size_x of reduce.comp
constexpr int kUpdateGroupSize = 256;  // local_size_x of update.comp

bool hasExtension(const char* wanted) {
  GLint count = 0;
  glGetIntegerv(GL_NUM_EXTENSIONS, &count);
  for (GLint k = 0; k < count; ++k)
    if (std::string_view(reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, GLuint(k)))) == wanted)
      return true;
  return false;
}

// Multiprocessors of the GPU where the driver says (NVIDIA); otherwise a mid-size guess.
int multiprocessorCount() {
  if (!hasExtension("GL_NV_shader_thread_group")) return 16;
  GLint count = 0;
  glGetIntegerv(kSmCountNv, &count);
  return count > 0 ? count : 16;
}

int ceilDiv(std::size_t a, std::size_t b) { return int((a + b - 1) / b); }

}  // namespace

ComputeEngine::ComputeEngine()
    : groupSize_{"group-size", "threads per work group, and bodies per shared-memory tile (auto: from N)",
                 {"auto", "64", "128", "256", "512"}, "auto"},
      slices_{"slices", "slices of the j-loop run by separate work groups, then added (auto: from N and the GPU)",
              {"auto", "1", "2", "4", "8", "16", "32", "64"}, "auto"},
      bodiesPerThread_{"bodies-per-thread",
                       "bodies each thread accumulates: each tile entry serves them all (auto: from N)",
                       {"auto", "1", "2", "4"}, "auto"} {
  // NBODY_DISABLE_COMPUTE lets the tests take the path of a GPU without compute shaders.
  if (std::getenv("NBODY_DISABLE_COMPUTE"))
    throw std::runtime_error("compute shaders disabled by NBODY_DISABLE_COMPUTE");
  GLint major = 0, minor = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  glGetIntegerv(GL_MINOR_VERSION, &minor);
  if (major < 4 || (major == 4 && minor < 3))
    throw std::runtime_error("the compute engine needs OpenGL 4.3 compute shaders; this context is " +
                             std::to_string(major) + "." + std::to_string(minor));
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &maxTextureSize_);
  for (GLuint axis = 0; axis < 2; ++axis) glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, axis, &maxWorkGroups_[axis]);
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &maxStorageBlockBytes_);
  multiprocessors_ = multiprocessorCount();
}

void ComputeEngine::checkCapacity(std::size_t bodies) const {
  const glm::ivec2 size = checkGpuCapacity(bodies, 1);
  const std::size_t padded = std::size_t(size.x) * std::size_t(size.y);
  checkLayoutFits(bodies, padded, layoutFor(padded));
}

void ComputeEngine::checkLayoutFits(std::size_t bodies, std::size_t paddedBodies, const Layout& layout) const {
  const std::size_t perBody = std::size_t(ceilDiv(bodies, std::max(kUpdateGroupSize, kReduceGroupSize)));
  const std::size_t perBlock =
      std::size_t(ceilDiv(paddedBodies, std::size_t(layout.groupSize) * std::size_t(layout.bodiesPerThread)));
  const std::size_t wanted = std::max(perBody, perBlock);
  if (wanted > std::size_t(maxWorkGroups_[0]) || layout.slices > maxWorkGroups_[1])
    throw std::runtime_error(std::to_string(bodies) + " bodies need " + std::to_string(wanted) + " x " +
                             std::to_string(layout.slices) + " compute work groups, over this GPU's " +
                             std::to_string(maxWorkGroups_[0]) + " x " + std::to_string(maxWorkGroups_[1]) +
                             (perBlock > perBody ? ": choose a larger group-size or more bodies-per-thread" : ""));
  const double partialBytes = layout.slices > 1 ? double(layout.slices) * double(paddedBodies) * 16.0 : 0.0;
  if (partialBytes > double(maxStorageBlockBytes_))
    throw std::runtime_error(std::to_string(bodies) + " bodies in " + std::to_string(layout.slices) + " slices need " +
                             std::to_string(std::llround(partialBytes / 1e6)) + " MB of partial sums, over the " +
                             std::to_string(std::llround(double(maxStorageBlockBytes_) / 1e6)) +
                             " MB one shader storage block may hold on this GPU: choose fewer slices");
}

std::string ComputeEngine::device() const {
  return reinterpret_cast<const char*>(glGetString(GL_RENDERER));
}

void ComputeEngine::setOption(const std::string& optionName, const std::string& value) {
  reusedForce_.forget();  // a recomputed force may round differently in another layout
  EngineOption* option = optionName == groupSize_.name ? &groupSize_
                         : optionName == slices_.name  ? &slices_
                         : optionName == bodiesPerThread_.name ? &bodiesPerThread_
                                                                : nullptr;
  if (!option) return Engine::setOption(optionName, value);
  const std::string before = option->value;
  chooseOption(*option, value);
  if (bodyCount_ == 0) return;
  try {  // a layout this GPU cannot run is refused here, with the state untouched
    checkLayoutFits(bodyCount_, paddedCount(), layout());
  } catch (const std::runtime_error& e) {
    option->value = before;
    throw UsageError(e.what());
  }
}

void ComputeEngine::upload(const State& state) {
  // The textures about to be cleared and rewritten were last written by image stores; without this
  // bit OpenGL does not order the rewrite after them.
  glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT);
  const glm::ivec2 size = StageTextures::sizeFor(state.size(), maxTextureSize_);
  const std::size_t padded = std::size_t(size.x) * std::size_t(size.y);
  // Refused before anything changes, for callers that did not ask checkCapacity; setOption checks
  // option changes, so a step never meets a layout the GPU cannot run.
  checkLayoutFits(state.size(), padded, layoutFor(padded));
  reusedForce_.forget();
  textures_.allocate(size);
  bodyCount_ = state.size();
  textures_.upload(state);
}

State ComputeEngine::download() {
  glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT);
  return textures_.download(bodyCount_);
}

std::optional<GpuStateView> ComputeEngine::gpuState() const {
  if (bodyCount_ == 0) return std::nullopt;
  return textures_.view(bodyCount_);
}

ComputeEngine::Layout ComputeEngine::resolveLayout(std::size_t paddedBodies, const std::string& groupSize,
                                                   const std::string& bodiesPerThread,
                                                   const std::string& slices, int multiprocessors) {
  // Large N: big groups, and two bodies per thread (fewer shared-memory loads per interaction),
  // which measured best on the H100 from N = 16384 to 262144 but not at 1M. Small N: the work is
  // small and what counts is spreading it over many groups (docs/performance.md).
  const bool large = paddedBodies >= 16384;
  const bool twoPerThread = large && paddedBodies < 524288;
  Layout layout;
  layout.groupSize = groupSize == "auto" ? (large ? 512 : 128) : std::stoi(groupSize);
  layout.bodiesPerThread = bodiesPerThread == "auto" ? (twoPerThread ? 2 : 1) : std::stoi(bodiesPerThread);
  int asked = 1;
  if (slices != "auto") {
    asked = std::stoi(slices);
  } else {
    // About two full waves of resident threads (2048 per SM on recent NVIDIA GPUs), with at least
    // two whole tiles per slice. On the H100 at N = 16384 this picks 16, the best measured.
    const std::size_t threads =
        std::size_t(ceilDiv(paddedBodies, std::size_t(layout.groupSize) * layout.bodiesPerThread)) *
        std::size_t(layout.groupSize);
    const std::size_t wanted = std::size_t(multiprocessors) * 2048 * 2;
    while (asked < 64 && threads * std::size_t(asked) * 2 <= wanted &&
           paddedBodies / std::size_t(asked * 2) >= std::size_t(2 * layout.groupSize))
      asked *= 2;
  }
  // Whole tiles per slice; fewer slices when N is too small to give each one a tile.
  layout.sliceLength =
      ceilDiv(paddedBodies, std::size_t(asked) * std::size_t(layout.groupSize)) * layout.groupSize;
  layout.slices = ceilDiv(paddedBodies, std::size_t(layout.sliceLength));
  return layout;
}

ComputeEngine::Layout ComputeEngine::layoutFor(std::size_t paddedBodies) const {
  return resolveLayout(paddedBodies, groupSize_.value, bodiesPerThread_.value, slices_.value, multiprocessors_);
}

void ComputeEngine::runUpdate(const Method& method, const StepParams& params, int stage, bool forceStored) {
  const int accelerationInputs = stage + (forceStored ? 1 : 0);
  const StageKernel& update = kernels_.get(
      {{GL_COMPUTE_SHADER, {"body_layout.glsl", "rk_combine.glsl", "compute_store.glsl", "update.comp"}}},
      {"STAGE " + std::to_string(stage), "ACCELERATION_INPUTS " + std::to_string(accelerationInputs),
       "ACCELERATION_LAYERS 1", "ACCELERATION_SLICES 1", "WRITE_ACCELERATION 0"},
      stage, accelerationInputs);
  update.use(method, params, stage, bodyCount_, paddedCount());
  textures_.bindStageInputs(stage, accelerationInputs);
  bindComputeOutputs(textures_, stage, method.stageCount());
  glDispatchCompute(GLuint(ceilDiv(bodyCount_, kUpdateGroupSize)), 1, 1);
  barrierAfterStage();
}

void ComputeEngine::barrierAfterStage() {
  // The next stage fetches what this one stored; readback and drawing may follow too.
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT |
                  GL_SHADER_STORAGE_BARRIER_BIT);
}

void ComputeEngine::runStage(const Method& method, const StepParams& params, int stage, bool reuseLastForce) {
  const StageForce forceOfStage = stageForce(method, stage, reuseLastForce);
  if (forceOfStage != StageForce::evaluated)
    return runUpdate(method, params, stage, forceOfStage == StageForce::reused);
  const int stages = method.stageCount();
  const Layout layout = this->layout();
  const int slices = layout.slices;
  const bool fused = slices == 1;
  const std::vector<std::string> stageDefines{
      "STAGE " + std::to_string(stage), "ACCELERATION_INPUTS " + std::to_string(stage),
      "ACCELERATION_LAYERS 1", "ACCELERATION_SLICES 1",
      std::string("WRITE_ACCELERATION ") + (method.storesForce(stage) ? "1" : "0")};
  std::vector<std::string> forceDefines{softenedDefine(params),
                                        "BODIES " + std::to_string(layout.bodiesPerThread),
                                        "GROUP_SIZE " + std::to_string(layout.groupSize),
                                        std::string("FUSED ") + (fused ? "1" : "0")};
  std::vector<std::string> forceFiles{"body_layout.glsl", "gravity.glsl", "force.comp"};
  if (fused) {
    forceDefines.insert(forceDefines.end(), stageDefines.begin(), stageDefines.end());
    forceFiles.insert(forceFiles.begin() + 2, {"rk_combine.glsl", "compute_store.glsl"});
  }
  const StageKernel& force = kernels_.get({{GL_COMPUTE_SHADER, forceFiles}}, forceDefines, stage,
                                          fused ? stage : 0);
  force.use(method, params, stage, bodyCount_, paddedCount(), layout.sliceLength);
  textures_.bindStageInputs(stage, fused ? stage : 0);
  if (fused) bindComputeOutputs(textures_, stage, stages);
  glDispatchCompute(GLuint(ceilDiv(paddedCount(), std::size_t(layout.groupSize) * layout.bodiesPerThread)),
                    GLuint(slices), 1);
  if (!fused) {
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    std::vector<std::string> reduceDefines = stageDefines;
    reduceDefines.push_back("SLICES " + std::to_string(slices));
    const StageKernel& reduce = kernels_.get(
        {{GL_COMPUTE_SHADER, {"body_layout.glsl", "rk_combine.glsl", "compute_store.glsl", "reduce.comp"}}},
        reduceDefines, stage, stage);
    reduce.use(method, params, stage, bodyCount_, paddedCount());
    textures_.bindStageInputs(stage, stage);
    bindComputeOutputs(textures_, stage, stages);
    glDispatchCompute(GLuint(ceilDiv(bodyCount_, kReduceGroupSize)), 1, 1);
  }
  barrierAfterStage();
}

void ComputeEngine::step(const Method& method, const StepParams& params, int steps) {
  if (bodyCount_ == 0) throw std::logic_error("ComputeEngine::step before upload");
  textures_.setAccelerationLayout(1, 1);
  if (textures_.takeReallocated()) reusedForce_.forget();
  const int slices = layout().slices;
  const std::size_t bytes = std::size_t(slices) * paddedCount() * 4 * sizeof(float);
  if (slices > 1 && bytes > partialSumsBytes_) {
    partialSums_ = gl::Buffer::create();
    glNamedBufferStorage(partialSums_.id(), GLsizeiptr(bytes), nullptr, 0);
    partialSumsBytes_ = bytes;
  }
  if (partialSums_) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, partialSums_.id());
  for (int s = 0; s < steps; ++s) {
    const bool reuseLastForce = reusedForce_.available(method, params);
    for (int stage = 0; stage < method.stageCount(); ++stage) runStage(method, params, stage, reuseLastForce);
    textures_.finishStep(method);
    reusedForce_.afterStep(method, params);
  }
}

void ComputeEngine::finish() { glFinish(); }

}  // namespace nbody
