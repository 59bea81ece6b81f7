#include "engines/gpu_engine.h"

#include <algorithm>
#include <stdexcept>

#include "engines/gpu_capacity.h"

namespace nbody {

GpuEngine::GpuEngine(std::vector<EngineOption> options) : options_(std::move(options)) {}

std::string GpuEngine::device() const { return reinterpret_cast<const char*>(glGetString(GL_RENDERER)); }

const EngineOption& GpuEngine::option(std::string_view name) const {
  for (const EngineOption& option : options_)
    if (option.name == name) return option;
  throw std::logic_error("no engine option " + std::string(name));
}

void GpuEngine::setOption(const std::string& name, const std::string& value) {
  auto found = std::find_if(options_.begin(), options_.end(), [&](const EngineOption& o) { return o.name == name; });
  if (found == options_.end()) return Engine::setOption(name, value);
  reusedForce_.forget();  // a recomputed force may round differently in another variant
  const std::string before = found->value;
  chooseOption(*found, value);
  optionsChanged();
  if (bodyCount_ == 0) return;
  try {
    checkFits(bodyCount_, textures_.size());
  } catch (const std::runtime_error& e) {
    found->value = before;
    optionsChanged();
    throw UsageError(e.what());
  }
}

void GpuEngine::checkFits(std::size_t bodies, glm::ivec2 size) const {
  checkAccelerationSlicesFit(bodies, size, accelerationLayout().slices, gl::limits());
  checkLayout(bodies, size);
}

void GpuEngine::checkCapacity(std::size_t bodies) const {
  const gl::Limits& limits = gl::limits();
  const int slices = accelerationLayout().slices;
  const glm::ivec2 size = checkStateTextures(bodies, limits);
  checkAccelerationSlicesFit(bodies, size, slices, limits);
  checkGpuMemory(bodies, size, slices, extraBytes(bodies), limits);
  checkLayout(bodies, size);
}

void GpuEngine::upload(const State& state) {
  // The textures about to be cleared and rewritten may last have been written by image stores;
  // without this bit OpenGL does not order the rewrite after them.
  glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT);
  const glm::ivec2 size = StageTextures::sizeFor(state.size(), gl::limits().maxTextureSize);
  // Refused before anything changes, for callers that did not ask checkCapacity; setOption checks
  // option changes, so a step never meets a layout the GPU cannot run.
  checkFits(state.size(), size);
  reusedForce_.forget();
  textures_.allocate(size);
  bodyCount_ = state.size();
  textures_.upload(state);
}

State GpuEngine::download() {
  glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT);
  return textures_.download(bodyCount_);
}

std::optional<GpuStateView> GpuEngine::gpuState() const {
  if (bodyCount_ == 0) return std::nullopt;
  return textures_.view(bodyCount_);
}

void GpuEngine::finish() { glFinish(); }

void GpuEngine::runStage(const StagePass& pass) {
  if (pass.force == StageForce::evaluated) {
    if (runFusedStage(pass)) return;
    evaluateForce(pass);
  }
  runUpdate(pass);
}

void GpuEngine::step(const Method& method, const StepParams& params, int steps) {
  if (bodyCount_ == 0) throw std::logic_error(name() + " engine: step before upload");
  if (method.stageCount() > maxStageCount())
    throw std::logic_error("method " + method.name + " has more stages than the engine allocated");
  const AccelerationLayout layout = accelerationLayout();
  textures_.setAccelerationLayout(layout.layers, layout.slices);
  if (textures_.takeReallocated()) {
    texturesReallocated();
    reusedForce_.forget();
  }
  beginSteps();
  for (int s = 0; s < steps; ++s) {
    const bool reuseLastForce = reusedForce_.available(method, params);
    for (int stage = 0; stage < method.stageCount(); ++stage)
      runStage({method, params, stage, stageForce(method, stage, reuseLastForce)});
    textures_.finishStep(method);
    reusedForce_.afterStep(method, params);
  }
  // Leave nothing of ours bound: another component sharing the context (the renderer, a UI) may
  // save and restore bindings, and a name bound here may be deleted with this engine.
  glUseProgram(0);
  glBindVertexArray(0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

}  // namespace nbody
