#include "engines/stage_textures.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string_view>

#include "physics/method.h"

namespace nbody {
namespace {

constexpr int kBasePositionUnit = 0, kBaseVelocityUnit = 1, kStagePositionUnit = 2,
              kStageVelocityUnit = 3;
int stageAccelerationUnit(int stage) { return kStageVelocityUnit + stage + 1; }

gl::Texture makeTexture(GLenum target, glm::ivec2 size, int layers = 1) {
  GLuint id = 0;
  glCreateTextures(target, 1, &id);
  gl::Texture texture(id);
  if (target == GL_TEXTURE_2D_ARRAY)
    glTextureStorage3D(id, 1, GL_RGBA32F, size.x, size.y, layers);
  else
    glTextureStorage2D(id, 1, GL_RGBA32F, size.x, size.y);
  glTextureParameteri(id, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTextureParameteri(id, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  const float zero[4] = {0, 0, 0, 0};
  glClearTexImage(id, 0, GL_RGBA, GL_FLOAT, zero);
  return texture;
}

void setSamplerUnits(GLuint program, const char* name, int firstUnit, int count) {
  const GLint location = glGetUniformLocation(program, name);
  if (location < 0 || count == 0) return;  // the compiler dropped an unused sampler
  std::vector<GLint> units(count);
  for (int k = 0; k < count; ++k) units[k] = firstUnit + k;
  glProgramUniform1iv(program, location, count, units.data());
}

std::vector<float> readTexture(GLuint texture, glm::ivec2 size) {
  std::vector<float> texels(std::size_t(size.x) * std::size_t(size.y) * 4);
  glGetTextureImage(texture, 0, GL_RGBA, GL_FLOAT, GLsizei(texels.size() * sizeof(float)), texels.data());
  return texels;
}

}  // namespace

void checkAccelerationSlicesFit(std::size_t bodies, glm::ivec2 size, int accelerationSlices, int maxTextureSize) {
  if (std::size_t(size.y) * std::size_t(accelerationSlices) > std::size_t(maxTextureSize))
    throw std::runtime_error(std::to_string(bodies) + " bodies in " + std::to_string(accelerationSlices) +
                             " slices need acceleration textures " + std::to_string(size.y) + " x " +
                             std::to_string(accelerationSlices) + " texels high, over this GPU's " +
                             std::to_string(maxTextureSize) + ": choose fewer slices");
}

glm::ivec2 checkGpuCapacity(std::size_t bodies, int accelerationSlices) {
  GLint largest = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &largest);
  glm::ivec2 size;
  try {
    size = StageTextures::sizeFor(bodies, largest);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string(e.what()) + ", the largest this GPU offers (at most " +
                             std::to_string(std::size_t(largest) * std::size_t(largest)) + " bodies)");
  }
  checkAccelerationSlicesFit(bodies, size, accelerationSlices, largest);
  // download() and the readback ring read a whole state texture in one call, sized by a GLsizei.
  const double stateTextureBytes = double(size.x) * double(size.y) * 16.0;
  if (stateTextureBytes > double(std::numeric_limits<GLsizei>::max()))
    throw std::runtime_error(std::to_string(bodies) + " bodies make state textures of " +
                             std::to_string(std::llround(stateTextureBytes / 1e9)) +
                             " GB, over the 2 GiB one OpenGL read returns (about 134 million bodies at most)");
  // Base and stage positions and velocities, and the stage accelerations with their slices.
  const double texels = double(size.x) * double(size.y);
  const double bytes = texels * 16.0 * (6 + (maxStageCount() - 1) + maxStageCount() * accelerationSlices);
  constexpr GLenum kAvailableKilobytesNvx = 0x9049;  // GL_GPU_MEMORY_INFO_CURRENT_AVAILABLE_VIDMEM_NVX
  GLint count = 0;
  glGetIntegerv(GL_NUM_EXTENSIONS, &count);
  for (GLint k = 0; k < count; ++k) {
    if (std::string_view(reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, GLuint(k)))) !=
        "GL_NVX_gpu_memory_info")
      continue;
    GLint availableKilobytes = 0;
    glGetIntegerv(kAvailableKilobytesNvx, &availableKilobytes);
    if (bytes > double(availableKilobytes) * 1024.0)
      throw std::runtime_error(std::to_string(bodies) + " bodies need about " +
                               std::to_string(std::llround(bytes / 1e9)) + " GB of textures; the GPU has " +
                               std::to_string(availableKilobytes / 1000000) + " GB free");
  }
  return size;
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
  if (size == size_) return;
  size_ = size;
  parity_ = 0;
  for (int p = 0; p < 2; ++p) {
    basePositionMass_[p] = makeTexture(GL_TEXTURE_2D, size);
    baseVelocity_[p] = makeTexture(GL_TEXTURE_2D, size);
    stagePosition_[p] = makeTexture(GL_TEXTURE_2D, size);
  }
  stageVelocity_.clear();
  for (int j = 0; j < maxStageCount(); ++j)
    stageVelocity_.push_back(j == 0 ? gl::Texture() : makeTexture(GL_TEXTURE_2D, size));
  const int layers = std::exchange(accelerationLayers_, 0);
  setAccelerationLayout(layers ? layers : 1, accelerationSlices_ ? accelerationSlices_ : 1);
  reallocated_ = true;
}

void StageTextures::setAccelerationLayout(int layers, int slices) {
  if (layers == accelerationLayers_ && slices == accelerationSlices_) return;
  if (size_.x % layers != 0) throw std::logic_error("acceleration layers must divide the width");
  accelerationLayers_ = layers;
  accelerationSlices_ = slices;
  stageAcceleration_.clear();
  for (int j = 0; j < maxStageCount(); ++j)
    stageAcceleration_.push_back(
        makeTexture(GL_TEXTURE_2D_ARRAY, {size_.x / layers, size_.y * slices}, layers));
  reallocated_ = true;
}

bool StageTextures::takeReallocated() { return std::exchange(reallocated_, false); }

void StageTextures::upload(const State& state) {
  // Kernels that write only the bodies (the compute engine's) leave padding texels as they find
  // them, and a texture of this size may have held more bodies before: every position a force
  // pass reads must be massless padding again.
  const float zero[4] = {0, 0, 0, 0};
  for (const gl::Texture* texture :
       {&basePositionMass_[1 - parity_], &baseVelocity_[1 - parity_], &stagePosition_[0], &stagePosition_[1]})
    glClearTexImage(texture->id(), 0, GL_RGBA, GL_FLOAT, zero);
  const std::size_t texels = std::size_t(size_.x) * std::size_t(size_.y);
  std::vector<glm::vec4> positionMass(texels, glm::vec4(0.0f)), velocity(texels, glm::vec4(0.0f));
  std::copy(state.positionMass.begin(), state.positionMass.end(), positionMass.begin());
  std::copy(state.velocity.begin(), state.velocity.end(), velocity.begin());
  glTextureSubImage2D(basePositionMass_[parity_].id(), 0, 0, 0, size_.x, size_.y, GL_RGBA,
                      GL_FLOAT, positionMass.data());
  glTextureSubImage2D(baseVelocity_[parity_].id(), 0, 0, 0, size_.x, size_.y, GL_RGBA, GL_FLOAT,
                      velocity.data());
}

State StageTextures::download(std::size_t bodyCount) const {
  const std::vector<float> positionMass = readTexture(basePositionMass_[parity_].id(), size_);
  const std::vector<float> velocity = readTexture(baseVelocity_[parity_].id(), size_);
  State state;
  state.resize(bodyCount);
  for (std::size_t i = 0; i < bodyCount; ++i) {
    state.positionMass[i] = glm::vec4(positionMass[4 * i], positionMass[4 * i + 1],
                                      positionMass[4 * i + 2], positionMass[4 * i + 3]);
    state.velocity[i] = glm::vec4(velocity[4 * i], velocity[4 * i + 1], velocity[4 * i + 2], 0.0f);
  }
  return state;
}

void StageTextures::finishStep(const Method& method) {
  parity_ = 1 - parity_;
  if (method.firstSameAsLast()) std::swap(stageAcceleration_[0], stageAcceleration_[method.stageCount() - 1]);
}

GpuStateView StageTextures::view(std::size_t bodyCount) const {
  return {basePositionMass_[parity_].id(), baseVelocity_[parity_].id(), size_, bodyCount};
}

GLuint StageTextures::stagePositionMass(int stage) const {
  return stage == 0 ? basePositionMass_[parity_].id() : stagePosition_[(stage - 1) % 2].id();
}

void StageTextures::bindStageInputs(int stage, int accelerationInputs) const {
  glBindTextureUnit(kBasePositionUnit, basePositionMass_[parity_].id());
  glBindTextureUnit(kBaseVelocityUnit, baseVelocity_[parity_].id());
  glBindTextureUnit(kStagePositionUnit, stagePositionMass(stage));
  for (int j = 0; j <= stage; ++j)
    glBindTextureUnit(kStageVelocityUnit + j, j == 0 ? baseVelocity_[parity_].id() : stageVelocity_[j].id());
  for (int j = 0; j < accelerationInputs; ++j)
    glBindTextureUnit(stageAccelerationUnit(stage) + j, stageAcceleration_[j].id());
}

GLuint StageTextures::outputPositionMass(int stage, int stageCount) const {
  return stage + 1 == stageCount ? basePositionMass_[1 - parity_].id() : stagePosition_[stage % 2].id();
}

GLuint StageTextures::outputVelocity(int stage, int stageCount) const {
  return stage + 1 == stageCount ? baseVelocity_[1 - parity_].id() : stageVelocity_[stage + 1].id();
}

constexpr int kOutPositionImage = 0, kOutVelocityImage = 1, kOutAccelerationImage = 2;

void setComputeImageUnits(GLuint program) {
  setSamplerUnits(program, "uOutPositionMass", kOutPositionImage, 1);
  setSamplerUnits(program, "uOutVelocity", kOutVelocityImage, 1);
  setSamplerUnits(program, "uOutAcceleration", kOutAccelerationImage, 1);
}

void bindComputeOutputs(const StageTextures& textures, int stage, int stageCount) {
  glBindImageTexture(kOutPositionImage, textures.outputPositionMass(stage, stageCount), 0, GL_FALSE,
                     0, GL_WRITE_ONLY, GL_RGBA32F);
  glBindImageTexture(kOutVelocityImage, textures.outputVelocity(stage, stageCount), 0, GL_FALSE, 0,
                     GL_WRITE_ONLY, GL_RGBA32F);
  glBindImageTexture(kOutAccelerationImage, textures.acceleration(stage), 0, GL_TRUE, 0,
                     GL_WRITE_ONLY, GL_RGBA32F);
}

void setStageSamplerUnits(GLuint program, int stage, int accelerationInputs) {
  setSamplerUnits(program, "uBasePositionMass", kBasePositionUnit, 1);
  setSamplerUnits(program, "uBaseVelocity", kBaseVelocityUnit, 1);
  setSamplerUnits(program, "uStagePositionMass", kStagePositionUnit, 1);
  setSamplerUnits(program, "uStageVelocity", kStageVelocityUnit, stage + 1);
  setSamplerUnits(program, "uStageAcceleration", stageAccelerationUnit(stage), accelerationInputs);
}

}  // namespace nbody
