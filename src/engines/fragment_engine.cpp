#include "engines/fragment_engine.h"

#include <cmath>
#include <stdexcept>

#include "engines/gpu_capacity.h"
#include "engines/stage_units.h"

namespace nbody {
namespace {

const KernelSources kFusedStage{{{GL_VERTEX_SHADER, {"fullscreen.vert"}},
                                 {GL_FRAGMENT_SHADER,
                                  {"gravity.glsl", "external_potential.glsl", "texture_sum.glsl",
                                   "rk_combine.glsl", "stage.frag"}}}};
const KernelSources kForce{
    {{GL_VERTEX_SHADER, {"fullscreen.vert"}},
     {GL_FRAGMENT_SHADER,
      {"gravity.glsl", "external_potential.glsl", "texture_sum.glsl", "force.frag"}}}};
const KernelSources kUpdate{{{GL_VERTEX_SHADER, {"fullscreen.vert"}},
                             {GL_FRAGMENT_SHADER, {"rk_combine.glsl", "update.frag"}}}};

const std::vector<std::string> kBodiesPerFragment{"1", "2", "4", "8"};

void drawFullscreen(glm::ivec2 size) {
  glViewport(0, 0, size.x, size.y);
  glDrawArrays(GL_TRIANGLES, 0, 3);
}

// The render targets a pass writes: stage, velocity and (fused) acceleration, or one
// acceleration per body of a fragment.
void checkRenderTargets(const gl::Limits& limits) {
  const int required = std::max(3, std::stoi(kBodiesPerFragment.back()));
  if (limits.maxDrawBuffers < required || limits.maxColorAttachments < required)
    throw std::runtime_error("the fragment engine needs " + std::to_string(required) +
                             " render targets; this GPU offers " +
                             std::to_string(limits.maxDrawBuffers));
}

}  // namespace

FragmentEngine::FragmentEngine()
    : GpuEngine({{"unroll",
                  "texel loop unrolled in blocks of X x Y texels (the paper's table 3)",
                  {"1x1", "2x2", "4x4", "8x8"},
                  "2x2"},
                 {"bodies-per-fragment",
                  "bodies each fragment integrates: every fetched position serves them all",
                  kBodiesPerFragment, "4"},
                 {"slices",
                  "slices of the j-loop run by separate fragments, then added",
                  {"1", "2", "4", "8"},
                  "4"}}),
      emptyVertexArray_(gl::VertexArray::create()) {
  checkRenderTargets(gl::limits());
  checkStageUnitsFit(gl::limits().maxFragmentTextureUnits, "fragment");
  optionsChanged();
}

void FragmentEngine::optionsChanged() {
  const std::string& block = option("unroll").value;  // "XxY"
  const auto x = block.find('x');
  layout_.unrollX = std::stoi(block.substr(0, x));
  layout_.unrollY = std::stoi(block.substr(x + 1));
  layout_.bodiesPerFragment = integerChoice(option("bodies-per-fragment"));
  layout_.slices = integerChoice(option("slices"));
}

// texture_sum.glsl's sumOverRows: its rows (every row where the stage is fused) in blocks of
// unrollY, each block's row in blocks of unrollX, then the right and bottom edges texel by texel.
double FragmentEngine::forceLoopIterations(glm::ivec2 size) const {
  const double rows =
      layout_.fused() ? double(size.y) : std::ceil(double(size.y) / double(layout_.slices));
  const double blockRows = std::floor(rows / layout_.unrollY);
  const double blocksX = std::floor(double(size.x) / layout_.unrollX);
  const double edgeX = double(size.x % layout_.unrollX),
               edgeRows = rows - blockRows * layout_.unrollY;
  return blockRows * (blocksX + 1) + rows * (edgeX + 1) + edgeRows * (double(size.x) + 1) + 2;
}

void FragmentEngine::checkLayout(std::size_t bodies, glm::ivec2 size) const {
  checkLoopsRun(bodies,
                std::to_string(layout_.slices) + " slices of unroll " + option("unroll").value,
                forceLoopIterations(size), gl::limits(), "choose more slices or a larger unroll");
}

GpuEngine::AccelerationLayout FragmentEngine::accelerationLayout() const {
  if (layout_.fused()) return {1, 1};
  return {layout_.bodiesPerFragment, layout_.slices};
}

void FragmentEngine::drawInto(const std::vector<std::pair<GLuint, int>>& attachments) {
  auto found = framebuffers_.find(attachments);
  if (found == framebuffers_.end()) {
    gl::Framebuffer framebuffer = gl::Framebuffer::create();
    std::vector<GLenum> drawBuffers;
    for (std::size_t k = 0; k < attachments.size(); ++k) {
      const GLenum attachment = GL_COLOR_ATTACHMENT0 + GLenum(k);
      const auto [texture, layer] = attachments[k];
      gl::attachTexture(framebuffer.id(), attachment, texture, layer);
      drawBuffers.push_back(attachment);
    }
    gl::setDrawBuffers(framebuffer.id(), drawBuffers);
    const GLenum status = gl::framebufferStatus(framebuffer.id());
    if (status != GL_FRAMEBUFFER_COMPLETE)
      throw std::runtime_error(
          "RGBA32F render targets are not supported here (framebuffer status " +
          std::to_string(status) + ")");
    found = framebuffers_.emplace(attachments, std::move(framebuffer)).first;
  }
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, found->second.id());
}

gl::Defines FragmentEngine::forceDefines(const StepParams& params) const {
  return {
      {"SOFTENED", softened(params) ? 1 : 0}, {"POTENTIAL_COMPONENTS", potentialComponents(params)},
      {"CONTACTS", contactScreening(params)}, {"BODIES", layout_.bodiesPerFragment},
      {"UNROLL_X", layout_.unrollX},          {"UNROLL_Y", layout_.unrollY}};
}

bool FragmentEngine::runFusedStage(const StagePass& pass) {
  if (!layout_.fused()) return false;
  const int stage = pass.stage;
  const bool writeAcceleration = pass.storesForce;
  gl::Defines defines = forceDefines(pass.params);
  defines.add({{"STAGE", stage},
               {"ACCELERATION_INPUTS", stage},
               {"ACCELERATION_LAYERS", 1},
               {"ACCELERATION_SLICES", 1},
               {"WRITE_ACCELERATION", writeAcceleration ? 1 : 0}});
  const StageKernel& kernel = kernels().get(kFusedStage, defines, {stage, stage});
  std::vector<std::pair<GLuint, int>> attachments{
      {textures().outputPositionMass(stage, pass.stageCount()), -1},
      {textures().outputVelocity(stage, pass.stageCount()), -1}};
  if (writeAcceleration) attachments.push_back({textures().acceleration(stage), 0});
  drawInto(attachments);
  kernel.use(pass.method, pass.params, stage, bodyCount(), 0);
  bindStageInputs(textures(), {stage, stage});
  drawShare(textures().size());
  return true;
}

void FragmentEngine::evaluateForce(const StagePass& pass) {
  const int bodies = layout_.bodiesPerFragment;
  const StageKernel& force =
      kernels().get(kForce, forceDefines(pass.params).set("SLICES", layout_.slices), {});
  std::vector<std::pair<GLuint, int>> layers;
  for (int k = 0; k < bodies; ++k) layers.push_back({textures().acceleration(pass.stage), k});
  drawInto(layers);
  force.use(pass.method, pass.params, pass.stage, bodyCount(), 0);
  bindStageInputs(textures(), {pass.stage, 0});
  drawShare({textures().size().x / bodies, textures().size().y * layout_.slices});
}

void FragmentEngine::runUpdate(const StagePass& pass) {
  const int stage = pass.stage, inputs = pass.storedAccelerations();
  const AccelerationLayout stored = accelerationLayout();
  const StageKernel& update = kernels().get(kUpdate,
                                            {{"STAGE", stage},
                                             {"ACCELERATION_INPUTS", inputs},
                                             {"ACCELERATION_LAYERS", stored.layers},
                                             {"ACCELERATION_SLICES", stored.slices}},
                                            {stage, inputs});
  drawInto({{textures().outputPositionMass(stage, pass.stageCount()), -1},
            {textures().outputVelocity(stage, pass.stageCount()), -1}});
  update.use(pass.method, pass.params, stage, bodyCount(), 0);
  bindStageInputs(textures(), {stage, inputs});
  drawShare(textures().size());
}

// The fullscreen triangle over `size` (the state's height or, for the force's slices, several of
// it stacked); in a distributed run only over this rank's rows of each state height.
void FragmentEngine::drawShare(glm::ivec2 size) {
  const auto own = ownBodies();
  if (!own) return drawFullscreen(size);
  const int width = textures().size().x, height = textures().size().y;
  const int firstRow = int(own->first / std::size_t(width)),
            rows = int(own->size() / std::size_t(width));
  glViewport(0, 0, size.x, size.y);
  glEnable(GL_SCISSOR_TEST);
  for (int top = 0; top < size.y; top += height) {
    glScissor(0, top + firstRow, size.x, rows);
    glDrawArrays(GL_TRIANGLES, 0, 3);
  }
  glDisable(GL_SCISSOR_TEST);
}

void FragmentEngine::beginSteps() {
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_SCISSOR_TEST);
  glBindVertexArray(emptyVertexArray_.id());
}

}  // namespace nbody
