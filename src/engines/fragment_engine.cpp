#include "engines/fragment_engine.h"

#include <stdexcept>

namespace nbody {
namespace {

GLint getInteger(GLenum name) {
  GLint value = 0;
  glGetIntegerv(name, &value);
  return value;
}

void drawFullscreen(glm::ivec2 size) {
  glViewport(0, 0, size.x, size.y);
  glDrawArrays(GL_TRIANGLES, 0, 3);
}

}  // namespace

FragmentEngine::FragmentEngine()
    : emptyVertexArray_(gl::VertexArray::create()),
      unroll_{"unroll", "texel loop unrolled in blocks of X x Y texels (the paper's table 3)",
              {"1x1", "2x2", "4x4", "8x8"}, "2x2"},
      bodiesPerFragment_{"bodies-per-fragment",
                         "bodies each fragment integrates: every fetched position serves them all",
                         {"1", "2", "4", "8"}, "4"},
      slices_{"slices", "slices of the j-loop run by separate fragments, then added",
              {"1", "2", "4", "8"}, "4"} {
  const int maxBodies = std::stoi(bodiesPerFragment_.choices.back());
  const int requiredTargets = std::max(3, maxBodies);
  if (getInteger(GL_MAX_DRAW_BUFFERS) < requiredTargets ||
      getInteger(GL_MAX_COLOR_ATTACHMENTS) < requiredTargets)
    throw std::runtime_error("the fragment engine needs " + std::to_string(requiredTargets) +
                             " render targets; this GPU offers " +
                             std::to_string(getInteger(GL_MAX_DRAW_BUFFERS)));
  maxTextureSize_ = getInteger(GL_MAX_TEXTURE_SIZE);
}

std::string FragmentEngine::device() const {
  return reinterpret_cast<const char*>(glGetString(GL_RENDERER));
}

void FragmentEngine::setOption(const std::string& optionName, const std::string& value) {
  reusedForce_.forget();  // a recomputed force may round differently in another variant
  if (optionName == unroll_.name) return chooseOption(unroll_, value);
  if (optionName == bodiesPerFragment_.name) return chooseOption(bodiesPerFragment_, value);
  if (optionName != slices_.name) return Engine::setOption(optionName, value);
  const std::string before = slices_.value;
  chooseOption(slices_, value);
  if (bodyCount_ == 0) return;
  try {  // slices whose stacked accelerations this GPU cannot hold are refused, the state untouched
    checkAccelerationSlicesFit(bodyCount_, textures_.size(), slices(), maxTextureSize_);
  } catch (const std::runtime_error& e) {
    slices_.value = before;
    throw UsageError(e.what());
  }
}

void FragmentEngine::upload(const State& state) {
  reusedForce_.forget();
  textures_.allocate(StageTextures::sizeFor(state.size(), maxTextureSize_));
  bodyCount_ = state.size();
  textures_.upload(state);
}

State FragmentEngine::download() { return textures_.download(bodyCount_); }

std::optional<GpuStateView> FragmentEngine::gpuState() const {
  if (bodyCount_ == 0) return std::nullopt;
  return textures_.view(bodyCount_);
}

GLuint FragmentEngine::targets(const std::vector<std::pair<GLuint, int>>& attachments) {
  auto found = framebuffers_.find(attachments);
  if (found != framebuffers_.end()) return found->second.id();
  gl::Framebuffer framebuffer = gl::Framebuffer::create();
  std::vector<GLenum> drawBuffers;
  for (std::size_t k = 0; k < attachments.size(); ++k) {
    const GLenum attachment = GL_COLOR_ATTACHMENT0 + GLenum(k);
    const auto [texture, layer] = attachments[k];
    if (layer < 0)
      glNamedFramebufferTexture(framebuffer.id(), attachment, texture, 0);
    else
      glNamedFramebufferTextureLayer(framebuffer.id(), attachment, texture, 0, layer);
    drawBuffers.push_back(attachment);
  }
  glNamedFramebufferDrawBuffers(framebuffer.id(), GLsizei(drawBuffers.size()), drawBuffers.data());
  const GLenum status = glCheckNamedFramebufferStatus(framebuffer.id(), GL_DRAW_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE)
    throw std::runtime_error("RGBA32F render targets are not supported here (framebuffer status " +
                             std::to_string(status) + ")");
  return framebuffers_.emplace(attachments, std::move(framebuffer)).first->second.id();
}

std::vector<std::string> FragmentEngine::forceDefines(const StepParams& params) const {
  const std::string& block = unroll_.value;
  const auto x = block.find('x');
  return {softenedDefine(params), "BODIES " + bodiesPerFragment_.value,
          "UNROLL_X " + block.substr(0, x), "UNROLL_Y " + block.substr(x + 1)};
}

void FragmentEngine::runFusedStage(const Method& method, const StepParams& params, int stage) {
  const int stages = method.stageCount();
  const bool writeAcceleration = method.storesForce(stage);
  std::vector<std::string> defines = forceDefines(params);
  defines.insert(defines.end(), {"STAGE " + std::to_string(stage), "ACCELERATION_INPUTS " + std::to_string(stage),
                                 "ACCELERATION_LAYERS 1", "ACCELERATION_SLICES 1",
                                 std::string("WRITE_ACCELERATION ") + (writeAcceleration ? "1" : "0")});
  const StageKernel& kernel = kernels_.get(
      {{GL_VERTEX_SHADER, {"fullscreen.vert"}},
       {GL_FRAGMENT_SHADER, {"gravity.glsl", "texture_sum.glsl", "rk_combine.glsl", "stage.frag"}}},
      defines, stage, stage);
  std::vector<std::pair<GLuint, int>> attachments{{textures_.outputPositionMass(stage, stages), -1},
                                                  {textures_.outputVelocity(stage, stages), -1}};
  if (writeAcceleration) attachments.push_back({textures_.acceleration(stage), 0});
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, targets(attachments));
  kernel.use(method, params, stage, bodyCount_, 0);
  textures_.bindStageInputs(stage, stage);
  drawFullscreen(textures_.size());
}

void FragmentEngine::runForce(const Method& method, const StepParams& params, int stage) {
  const int bodies = bodiesPerFragment();
  std::vector<std::string> defines = forceDefines(params);
  defines.push_back("SLICES " + slices_.value);
  const StageKernel& force = kernels_.get(
      {{GL_VERTEX_SHADER, {"fullscreen.vert"}},
       {GL_FRAGMENT_SHADER, {"gravity.glsl", "texture_sum.glsl", "force.frag"}}},
      defines, stage, 0);
  std::vector<std::pair<GLuint, int>> layers;
  for (int k = 0; k < bodies; ++k) layers.push_back({textures_.acceleration(stage), k});
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, targets(layers));
  force.use(method, params, stage, bodyCount_, 0);
  textures_.bindStageInputs(stage, 0);
  drawFullscreen({textures_.size().x / bodies, textures_.size().y * slices()});
}

void FragmentEngine::runUpdate(const Method& method, const StepParams& params, int stage, bool forceStored) {
  const int stages = method.stageCount();
  const int accelerationInputs = stage + (forceStored ? 1 : 0);
  const std::string layers = fused() ? "1" : bodiesPerFragment_.value;
  const std::string slices = fused() ? "1" : slices_.value;
  const StageKernel& update = kernels_.get(
      {{GL_VERTEX_SHADER, {"fullscreen.vert"}}, {GL_FRAGMENT_SHADER, {"rk_combine.glsl", "update.frag"}}},
      {"STAGE " + std::to_string(stage), "ACCELERATION_INPUTS " + std::to_string(accelerationInputs),
       "ACCELERATION_LAYERS " + layers, "ACCELERATION_SLICES " + slices},
      stage, accelerationInputs);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, targets({{textures_.outputPositionMass(stage, stages), -1},
                                                  {textures_.outputVelocity(stage, stages), -1}}));
  update.use(method, params, stage, bodyCount_, 0);
  textures_.bindStageInputs(stage, accelerationInputs);
  drawFullscreen(textures_.size());
}

void FragmentEngine::runStage(const Method& method, const StepParams& params, int stage,
                              bool reuseLastForce) {
  const StageForce forceOfStage = stageForce(method, stage, reuseLastForce);
  if (forceOfStage != StageForce::evaluated)
    return runUpdate(method, params, stage, forceOfStage == StageForce::reused);
  if (fused()) return runFusedStage(method, params, stage);
  runForce(method, params, stage);
  runUpdate(method, params, stage, true);
}

void FragmentEngine::step(const Method& method, const StepParams& params, int steps) {
  if (bodyCount_ == 0) throw std::logic_error("FragmentEngine::step before upload");
  if (method.stageCount() > maxStageCount())
    throw std::logic_error("method " + method.name + " has more stages than the engine allocated");
  textures_.setAccelerationLayout(fused() ? 1 : bodiesPerFragment(), fused() ? 1 : slices());
  if (textures_.takeReallocated()) {
    framebuffers_.clear();
    reusedForce_.forget();
  }
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_SCISSOR_TEST);
  glBindVertexArray(emptyVertexArray_.id());
  for (int s = 0; s < steps; ++s) {
    const bool reuseLastForce = reusedForce_.available(method, params);
    for (int stage = 0; stage < method.stageCount(); ++stage) runStage(method, params, stage, reuseLastForce);
    textures_.finishStep(method);
    reusedForce_.afterStep(method, params);
  }
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
}

void FragmentEngine::finish() { glFinish(); }

}  // namespace nbody
