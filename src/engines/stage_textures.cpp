#include "engines/stage_textures.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "gl/limits.h"
#include "gl/texture_rows.h"

namespace nbody {
namespace {

gl::Texture makeTexture(GLenum target, glm::ivec2 size, int layers = 1) {
  gl::Texture texture = gl::nearestTexture(target, GL_RGBA32F, {size.x, size.y, layers});
  gl::clearTexture(texture.id(), target, {size.x, size.y, layers});
  return texture;
}

gl::TextureShape shapeOf(glm::ivec2 size) { return {{size.x, size.y, 1}, GL_RGBA, GL_FLOAT, 16}; }

std::vector<float> readTexture(GLuint texture, glm::ivec2 size) {
  std::vector<float> texels(std::size_t(size.x) * std::size_t(size.y) * 4);
  gl::readTextureRows(texture, shapeOf(size), texels.data());
  return texels;
}

}  // namespace

std::uint8_t componentFromTexel(float w) {
  if (!(w >= 0.0f && w < float(kComponentCount) && w == float(int(w))))
    throw std::logic_error("a velocity texel's w holds " + std::to_string(w) +
                           ", not a component: a pass lost it");
  return std::uint8_t(w);
}

int maxStageCount() {
  int stages = 1;
  for (const Method& m : allMethods()) stages = std::max(stages, m.stageCount());
  return stages;
}

glm::ivec2 StageTextures::sizeFor(std::size_t bodyCount, int maxTextureSize) {
  if (bodyCount == 0) throw std::invalid_argument("a GPU engine needs at least one body");
  const std::size_t multiple = kWidthMultiple;
  std::size_t width = std::size_t(std::ceil(std::sqrt(double(bodyCount))));
  width = std::min((width + multiple - 1) / multiple * multiple, std::size_t(maxTextureSize));
  const std::size_t height = (bodyCount + width - 1) / width;
  if (height > std::size_t(maxTextureSize))
    throw std::invalid_argument(std::to_string(bodyCount) + " bodies do not fit in a " +
                                std::to_string(maxTextureSize) + " x " +
                                std::to_string(maxTextureSize) + " texture");
  return {int(width), int(height)};
}

void StageTextures::allocate(glm::ivec2 size) {
  if (size == size_ && !partial_) return;
  release(size);
  completeStages();
}

void StageTextures::release(glm::ivec2 size) {
  size_ = size;
  parity_ = 0;
  for (int p = 0; p < 2; ++p) {
    basePositionMass_[p] = {};
    baseVelocity_[p] = {};
    stagePosition_[p] = {};
  }
  keptPositionMass_ = {};
  keptVelocity_ = {};
  stageVelocity_.clear();
  stageAcceleration_.clear();
  partial_ = true;
}

void StageTextures::allocateBase() {
  if (basePositionMass_[parity_].id()) return;
  basePositionMass_[parity_] = makeTexture(GL_TEXTURE_2D, size_);
  baseVelocity_[parity_] = makeTexture(GL_TEXTURE_2D, size_);
}

void StageTextures::keepBaseOnly() {
  basePositionMass_[1 - parity_] = {};
  baseVelocity_[1 - parity_] = {};
  for (int p = 0; p < 2; ++p) stagePosition_[p] = {};
  stageVelocity_.clear();
  stageAcceleration_.clear();
  partial_ = true;
}

void StageTextures::completeStages() {
  if (!partial_) return;
  allocateBase();
  basePositionMass_[1 - parity_] = makeTexture(GL_TEXTURE_2D, size_);
  baseVelocity_[1 - parity_] = makeTexture(GL_TEXTURE_2D, size_);
  partial_ = false;
  const int stages = std::exchange(stages_, 0);
  if (accelerationLayers_ == 0) accelerationLayers_ = accelerationSlices_ = 1;
  try {
    reserveStages(std::max(stages, 1));
  } catch (...) {  // partial as before, the stages still to make
    keepBaseOnly();
    stages_ = stages;
    throw;
  }
  reallocated_ = true;
}

void StageTextures::reserveStages(int stages) {
  if (stages <= stages_) return;
  if (partial_) {  // completeStages() makes them
    stages_ = stages;
    return;
  }
  checkMemoryFor(stages);
  if (stages > 1 && !stagePosition_[0].id())
    for (int p = 0; p < 2; ++p) stagePosition_[p] = makeTexture(GL_TEXTURE_2D, size_);
  while (int(stageVelocity_.size()) < stages)
    stageVelocity_.push_back(stageVelocity_.empty() ? gl::Texture()
                                                    : makeTexture(GL_TEXTURE_2D, size_));
  stages_ = stages;
  addAccelerations();
  reallocated_ = true;
}

// Refuses, before allocating, stage textures for `stages` stages that the GPU's free memory (where
// the driver says, NVIDIA) cannot hold.
void StageTextures::checkMemoryFor(int stages) const {
  const std::optional<double> available = gl::limits().availableMemoryBytes();
  if (!available) return;
  const double texture = double(texelCount()) * 16.0;
  const int positions = stages > 1 && !stagePosition_[0].id() ? 2 : 0;
  const double bytes = texture * (positions + (stages - stages_) * (1 + accelerationSlices_));
  if (bytes > *available)
    throw std::runtime_error("a method of " + std::to_string(stages) + " stages needs " +
                             std::to_string(std::llround(bytes / 1e9)) +
                             " GB more of textures for " + std::to_string(texelCount()) +
                             " texels; the GPU has " +
                             std::to_string((long long)(*available / 1e9)) + " GB free");
}

void StageTextures::addAccelerations() {
  while (int(stageAcceleration_.size()) < stages_)
    stageAcceleration_.push_back(makeTexture(
        GL_TEXTURE_2D_ARRAY, {size_.x / accelerationLayers_, size_.y * accelerationSlices_},
        accelerationLayers_));
}

void StageTextures::setAccelerationLayout(int layers, int slices) {
  if (layers == accelerationLayers_ && slices == accelerationSlices_) return;
  if (size_.x % layers != 0) throw std::logic_error("acceleration layers must divide the width");
  accelerationLayers_ = layers;
  accelerationSlices_ = slices;
  stageAcceleration_.clear();
  if (partial_) return;  // completeStages() makes them
  addAccelerations();
  reallocated_ = true;
}

std::size_t StageTextures::bytes() const {
  std::size_t textures = stageAcceleration_.size() * std::size_t(accelerationSlices_);
  const auto count = [&](const gl::Texture& texture) { textures += texture.id() != 0 ? 1 : 0; };
  for (int p = 0; p < 2; ++p) {
    count(basePositionMass_[p]);
    count(baseVelocity_[p]);
    count(stagePosition_[p]);
  }
  count(keptPositionMass_);
  count(keptVelocity_);
  for (const gl::Texture& velocity : stageVelocity_) count(velocity);
  return textures * texelCount() * 16;
}

bool StageTextures::takeReallocated() { return std::exchange(reallocated_, false); }

void StageTextures::upload(const State& state) {
  // Kernels that write only the bodies (the compute engine's) leave padding texels as they find
  // them, and a texture of this size may have held more bodies before: every position a force
  // pass reads must be massless padding again.
  for (const gl::Texture* texture : {&basePositionMass_[1 - parity_], &baseVelocity_[1 - parity_],
                                     &stagePosition_[0], &stagePosition_[1]})
    if (texture->id()) gl::clearTexture(texture->id(), GL_TEXTURE_2D, {size_.x, size_.y, 1});
  writeBase(baseTexelsOf(state, 0, state.size(), texelCount()));
}

StageTextures::BaseTexels StageTextures::baseTexelsOf(const State& state, std::size_t first,
                                                      std::size_t last, std::size_t texelCount) {
  BaseTexels texels{std::vector<glm::vec4>(texelCount, glm::vec4(0.0f)),
                    std::vector<glm::vec4>(texelCount, glm::vec4(0.0f))};
  for (std::size_t i = first; i < last; ++i) {
    texels.positionMass[i - first] = state.positionMass[i];
    texels.velocity[i - first] =
        glm::vec4(glm::vec3(state.velocity[i]), float(componentOf(state, i)));
  }
  return texels;
}

State StageTextures::download(std::size_t bodyCount) const {
  gl::memoryBarrier(gl::barrier::textureUpdate);  // a compute update's image stores
  const std::vector<float> positionMass = readTexture(basePositionMass(), size_);
  const std::vector<float> velocity = readTexture(baseVelocity(), size_);
  State state;
  state.resize(bodyCount);
  for (std::size_t i = 0; i < bodyCount; ++i) {
    state.positionMass[i] = glm::vec4(positionMass[4 * i], positionMass[4 * i + 1],
                                      positionMass[4 * i + 2], positionMass[4 * i + 3]);
    state.velocity[i] = glm::vec4(velocity[4 * i], velocity[4 * i + 1], velocity[4 * i + 2], 0.0f);
    state.component[i] = componentFromTexel(velocity[4 * i + 3]);
  }
  return state;
}

StageTextures::BaseTexels StageTextures::readBase(std::size_t count) const {
  gl::memoryBarrier(gl::barrier::textureUpdate);  // a compute update's image stores
  BaseTexels texels;
  for (auto [texture, into] : {std::pair{basePositionMass(), &texels.positionMass},
                               std::pair{baseVelocity(), &texels.velocity}}) {
    into->resize(texelCount());
    gl::readTextureRows(texture, shapeOf(size_), into->data());
    into->resize(count);
  }
  return texels;
}

void StageTextures::writeBase(const BaseTexels& texels) {
  if (texels.positionMass.size() != texelCount() || texels.velocity.size() != texelCount())
    throw std::logic_error("a state's texels must fill its textures");
  gl::writeTextureRows(basePositionMass(), shapeOf(size_), texels.positionMass.data());
  gl::writeTextureRows(baseVelocity(), shapeOf(size_), texels.velocity.data());
}

std::vector<StageTextures::BodyTexture> StageTextures::bodyTextures() {
  if (accelerationLayers_ != 1 || accelerationSlices_ != 1)
    throw std::logic_error("only the plain acceleration layout moves by body");
  std::vector<BodyTexture> textures;
  const auto add = [&](gl::Texture& texture, GLenum target) {
    if (texture.id() != 0) textures.push_back({&texture, target});
  };
  for (int p = 0; p < 2; ++p) {
    add(basePositionMass_[p], GL_TEXTURE_2D);
    add(baseVelocity_[p], GL_TEXTURE_2D);
    add(stagePosition_[p], GL_TEXTURE_2D);
  }
  add(keptPositionMass_, GL_TEXTURE_2D);
  add(keptVelocity_, GL_TEXTURE_2D);
  for (gl::Texture& velocity : stageVelocity_) add(velocity, GL_TEXTURE_2D);
  for (gl::Texture& acceleration : stageAcceleration_) add(acceleration, GL_TEXTURE_2D_ARRAY);
  return textures;
}

void StageTextures::finishStep(const Method& method) {
  parity_ = 1 - parity_;
  if (method.firstSameAsLast())
    std::swap(stageAcceleration_[0], stageAcceleration_[method.stageCount() - 1]);
}

void StageTextures::keep() {
  if (!keptPositionMass_) {
    keptPositionMass_ = makeTexture(GL_TEXTURE_2D, size_);
    keptVelocity_ = makeTexture(GL_TEXTURE_2D, size_);
  }
  // The state may have been written by image stores (the compute engines' updates).
  gl::memoryBarrier(gl::barrier::all);
  gl::copyTexture2D(basePositionMass(), keptPositionMass_.id(), size_);
  gl::copyTexture2D(baseVelocity(), keptVelocity_.id(), size_);
}

void StageTextures::restoreKept() {
  if (!keptPositionMass_) throw std::logic_error("no state was kept");
  gl::memoryBarrier(gl::barrier::all);
  gl::copyTexture2D(keptPositionMass_.id(), basePositionMass(), size_);
  gl::copyTexture2D(keptVelocity_.id(), baseVelocity(), size_);
}

GpuStateView StageTextures::view(std::size_t bodyCount) const {
  return {basePositionMass(), baseVelocity(), size_, bodyCount};
}

GLuint StageTextures::stagePositionMass(int stage) const {
  return stage == 0 ? basePositionMass() : stagePosition_[(stage - 1) % 2].id();
}

GLuint StageTextures::stageVelocity(int stage) const {
  return stage == 0 ? baseVelocity() : stageVelocity_[stage].id();
}

GLuint StageTextures::outputPositionMass(int stage, int stageCount) const {
  return stage + 1 == stageCount ? basePositionMass_[1 - parity_].id()
                                 : stagePosition_[stage % 2].id();
}

GLuint StageTextures::outputVelocity(int stage, int stageCount) const {
  return stage + 1 == stageCount ? baseVelocity_[1 - parity_].id() : stageVelocity_[stage + 1].id();
}

}  // namespace nbody
