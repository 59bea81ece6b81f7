#include "engines/fragment_engine.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "gl/shader_program.h"

namespace nbody {
namespace {

int maxStageCount() {
  int stages = 1;
  for (const Method& m : allMethods()) stages = std::max(stages, m.stageCount());
  return stages;
}

gl::Texture makeStateTexture(glm::ivec2 size) {
  gl::Texture texture = gl::Texture::create();
  glTextureStorage2D(texture.id(), 1, GL_RGBA32F, size.x, size.y);
  glTextureParameteri(texture.id(), GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTextureParameteri(texture.id(), GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  return texture;
}

GLint getInteger(GLenum name) {
  GLint value = 0;
  glGetIntegerv(name, &value);
  return value;
}

void setSamplerUnits(GLuint program, const char* name, int firstUnit, int count) {
  const GLint location = glGetUniformLocation(program, name);
  if (location < 0) return;  // the compiler dropped an unused sampler
  std::vector<GLint> units(count);
  for (int k = 0; k < count; ++k) units[k] = firstUnit + k;
  glProgramUniform1iv(program, location, count, units.data());
}

// Texture units of the stage pass; the arrays follow one another.
constexpr int kBasePositionUnit = 0, kBaseVelocityUnit = 1, kStagePositionUnit = 2,
              kStageVelocityUnit = 3;
int stageAccelerationUnit(int stage) { return kStageVelocityUnit + stage + 1; }

}  // namespace

FragmentEngine::FragmentEngine() : emptyVertexArray_(gl::VertexArray::create()) {
  const int requiredTargets = 3;
  if (getInteger(GL_MAX_DRAW_BUFFERS) < requiredTargets ||
      getInteger(GL_MAX_COLOR_ATTACHMENTS) < requiredTargets)
    throw std::runtime_error("the fragment engine needs 3 render targets; this GPU offers " +
                             std::to_string(getInteger(GL_MAX_DRAW_BUFFERS)));
  maxTextureSize_ = getInteger(GL_MAX_TEXTURE_SIZE);
}

std::string FragmentEngine::device() const {
  return reinterpret_cast<const char*>(glGetString(GL_RENDERER));
}

glm::ivec2 FragmentEngine::textureSizeFor(std::size_t bodyCount, int maxTextureSize) {
  if (bodyCount == 0) throw std::invalid_argument("the fragment engine needs at least one body");
  const auto width = std::min<std::size_t>(
      std::size_t(std::ceil(std::sqrt(double(bodyCount)))), std::size_t(maxTextureSize));
  const std::size_t height = (bodyCount + width - 1) / width;
  if (height > std::size_t(maxTextureSize))
    throw std::invalid_argument(std::to_string(bodyCount) + " bodies do not fit in a " +
                                std::to_string(maxTextureSize) + " x " +
                                std::to_string(maxTextureSize) + " texture");
  return {int(width), int(height)};
}

void FragmentEngine::allocate(glm::ivec2 size) {
  if (size == size_) return;
  size_ = size;
  const int stages = maxStageCount();
  for (StateTextures& set : base_) {
    set.positionMass = makeStateTexture(size);
    set.velocity = makeStateTexture(size);
  }
  for (gl::Texture& texture : stagePosition_) texture = makeStateTexture(size);
  stageVelocity_.clear();
  stageAcceleration_.clear();
  for (int j = 0; j < stages; ++j) {
    stageVelocity_.push_back(j == 0 ? gl::Texture() : makeStateTexture(size));
    stageAcceleration_.push_back(makeStateTexture(size));
  }
  stageTargets_.clear();
  for (int j = 0; j + 1 < stages; ++j)
    stageTargets_.push_back(makeTargets({stagePosition_[j % 2].id(), stageVelocity_[j + 1].id(),
                                         stageAcceleration_[j].id()}));
  for (int p = 0; p < 2; ++p)
    stepTargets_[p] = makeTargets({base_[p].positionMass.id(), base_[p].velocity.id()});
}

gl::Framebuffer FragmentEngine::makeTargets(std::vector<GLuint> textures) const {
  gl::Framebuffer framebuffer = gl::Framebuffer::create();
  std::vector<GLenum> drawBuffers;
  for (std::size_t k = 0; k < textures.size(); ++k) {
    const GLenum attachment = GL_COLOR_ATTACHMENT0 + GLenum(k);
    glNamedFramebufferTexture(framebuffer.id(), attachment, textures[k], 0);
    drawBuffers.push_back(attachment);
  }
  glNamedFramebufferDrawBuffers(framebuffer.id(), GLsizei(drawBuffers.size()), drawBuffers.data());
  const GLenum status = glCheckNamedFramebufferStatus(framebuffer.id(), GL_DRAW_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE)
    throw std::runtime_error("RGBA32F render targets are not supported here (framebuffer status " +
                             std::to_string(status) + ")");
  return framebuffer;
}

void FragmentEngine::upload(const State& state) {
  allocate(textureSizeFor(state.size(), maxTextureSize_));
  bodyCount_ = state.size();
  parity_ = 0;
  // Padding texels: massless bodies at rest at the origin, which add exactly zero to every sum.
  const std::size_t texels = std::size_t(size_.x) * std::size_t(size_.y);
  std::vector<glm::vec4> positionMass(texels, glm::vec4(0.0f)), velocity(texels, glm::vec4(0.0f));
  std::copy(state.positionMass.begin(), state.positionMass.end(), positionMass.begin());
  std::copy(state.velocity.begin(), state.velocity.end(), velocity.begin());
  glTextureSubImage2D(base_[0].positionMass.id(), 0, 0, 0, size_.x, size_.y, GL_RGBA, GL_FLOAT,
                      positionMass.data());
  glTextureSubImage2D(base_[0].velocity.id(), 0, 0, 0, size_.x, size_.y, GL_RGBA, GL_FLOAT,
                      velocity.data());
}

std::vector<float> FragmentEngine::readTexture(const gl::Texture& texture) const {
  std::vector<float> texels(std::size_t(size_.x) * std::size_t(size_.y) * 4);
  glGetTextureImage(texture.id(), 0, GL_RGBA, GL_FLOAT, GLsizei(texels.size() * sizeof(float)),
                    texels.data());
  return texels;
}

State FragmentEngine::download() {
  const std::vector<float> positionMass = readTexture(base_[parity_].positionMass);
  const std::vector<float> velocity = readTexture(base_[parity_].velocity);
  State state;
  state.resize(bodyCount_);
  for (std::size_t i = 0; i < bodyCount_; ++i) {
    state.positionMass[i] = glm::vec4(positionMass[4 * i], positionMass[4 * i + 1],
                                      positionMass[4 * i + 2], positionMass[4 * i + 3]);
    state.velocity[i] = glm::vec4(velocity[4 * i], velocity[4 * i + 1], velocity[4 * i + 2], 0.0f);
  }
  return state;
}

GLuint FragmentEngine::programFor(int stage, bool writeAcceleration) {
  auto key = std::make_pair(stage, writeAcceleration);
  auto found = programs_.find(key);
  if (found != programs_.end()) return found->second.id();
  gl::Program program = gl::buildProgram(
      {{GL_VERTEX_SHADER, {"fullscreen.vert"}}, {GL_FRAGMENT_SHADER, {"gravity.glsl", "stage.frag"}}},
      {"STAGE " + std::to_string(stage), std::string("WRITE_ACCELERATION ") + (writeAcceleration ? "1" : "0")});
  const GLuint id = program.id();
  setSamplerUnits(id, "uBasePositionMass", kBasePositionUnit, 1);
  setSamplerUnits(id, "uBaseVelocity", kBaseVelocityUnit, 1);
  setSamplerUnits(id, "uStagePositionMass", kStagePositionUnit, 1);
  setSamplerUnits(id, "uStageVelocity", kStageVelocityUnit, stage + 1);
  if (stage > 0) setSamplerUnits(id, "uStageAcceleration", stageAccelerationUnit(stage), stage);
  programs_.emplace(key, std::move(program));
  return id;
}

void FragmentEngine::runStage(const Method& method, const StepParams& params, int stage) {
  const bool last = stage + 1 == method.stageCount();
  const GLuint program = programFor(stage, !last);
  glUseProgram(program);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, last ? stepTargets_[1 - parity_].id()
                                              : stageTargets_[stage].id());
  const StateTextures& base = base_[parity_];
  glBindTextureUnit(kBasePositionUnit, base.positionMass.id());
  glBindTextureUnit(kBaseVelocityUnit, base.velocity.id());
  glBindTextureUnit(kStagePositionUnit, stage == 0 ? base.positionMass.id()
                                                   : stagePosition_[(stage - 1) % 2].id());
  for (int j = 0; j <= stage; ++j)
    glBindTextureUnit(kStageVelocityUnit + j, j == 0 ? base.velocity.id() : stageVelocity_[j].id());
  for (int j = 0; j < stage; ++j)
    glBindTextureUnit(stageAccelerationUnit(stage) + j, stageAcceleration_[j].id());

  std::vector<float> weights;
  for (double w : method.outputWeights(stage)) weights.push_back(float(params.dt * w));
  glUniform1fv(glGetUniformLocation(program, "uWeight"), GLsizei(weights.size()), weights.data());
  glUniform1f(glGetUniformLocation(program, "uSoftening2"),
              float(params.softening * params.softening));
  glUniform1f(glGetUniformLocation(program, "uGravity"), float(params.gravity));
  glUniform1i(glGetUniformLocation(program, "uBodyCount"), GLint(bodyCount_));
  glDrawArrays(GL_TRIANGLES, 0, 3);
}

void FragmentEngine::step(const Method& method, const StepParams& params, int steps) {
  if (bodyCount_ == 0) throw std::logic_error("FragmentEngine::step before upload");
  if (method.stageCount() > int(stageAcceleration_.size()))
    throw std::logic_error("method " + method.name + " has more stages than the engine allocated");
  glViewport(0, 0, size_.x, size_.y);
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_SCISSOR_TEST);
  glBindVertexArray(emptyVertexArray_.id());
  for (int s = 0; s < steps; ++s) {
    for (int stage = 0; stage < method.stageCount(); ++stage) runStage(method, params, stage);
    parity_ = 1 - parity_;
  }
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
}

void FragmentEngine::finish() { glFinish(); }

std::optional<GpuStateView> FragmentEngine::gpuState() const {
  if (bodyCount_ == 0) return std::nullopt;
  return GpuStateView{base_[parity_].positionMass.id(), base_[parity_].velocity.id(), size_, bodyCount_};
}

}  // namespace nbody
