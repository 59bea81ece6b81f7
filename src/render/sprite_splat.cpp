#include "render/sprite_splat.h"
#include "gl/desktop_calls.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace nbody {
namespace {

constexpr GLuint kSumsBinding = 0, kLargeSpritesBinding = 1, kLightImageUnit = 0;
constexpr GLuint kWordsPerPixel = 6;      // r, g, b: a low and a high word each
constexpr GLuint kSpritesPerGroup = 256;  // sprite_splat.comp's local_size_x
constexpr GLuint kResolveTile = 16;       // sprite_resolve.comp's local size in x and y
// The large sprites' list is one indirect dispatch of a work group each, and every GL takes at
// least 65535 work groups in x.
constexpr std::size_t kMostLargeSprites = 65535;

GLuint groupsFor(std::size_t count, std::size_t perGroup) {
  return GLuint((count + perGroup - 1) / perGroup);
}

}  // namespace

SpriteSplat::SpriteSplat()
    : resolveProgram_(gl::buildProgram({{GL_COMPUTE_SHADER, {"sprite_resolve.comp"}}})),
      largeSprites_(gl::Buffer::create()),
      largeCapacity_(kMostLargeSprites) {
  glNamedBufferStorage(largeSprites_.id(), GLsizeiptr((3 + largeCapacity_) * sizeof(GLuint)),
                       nullptr, GL_DYNAMIC_STORAGE_BIT);
}

void SpriteSplat::reservePixels(std::size_t pixels) {
  if (pixels <= pixelCapacity_) return;
  sums_ = gl::Buffer::create();
  glNamedBufferStorage(sums_.id(), GLsizeiptr(pixels * kWordsPerPixel * sizeof(GLuint)), nullptr,
                       GL_DYNAMIC_STORAGE_BIT);  // addAcross writes the ranks' sums
  pixelCapacity_ = pixels;
}

void SpriteSplat::draw(std::size_t bodyCount, const gl::UniformProgram& smallSprites,
                       const gl::UniformProgram& largeSprites, glm::ivec2 size, GLuint light,
                       const Ranks* across) {
  const std::size_t pixels = std::size_t(size.x) * std::size_t(size.y);
  if (pixels == 0) return;
  reservePixels(pixels);
  const GLsizeiptr sumBytes = GLsizeiptr(pixels * kWordsPerPixel * sizeof(GLuint));
  glClearNamedBufferSubData(sums_.id(), GL_R32UI, 0, sumBytes, GL_RED_INTEGER, GL_UNSIGNED_INT,
                            nullptr);
  glBindBufferRange(GL_SHADER_STORAGE_BUFFER, kSumsBinding, sums_.id(), 0, sumBytes);
  if (bodyCount > 0) addSprites(bodyCount, smallSprites, largeSprites, size);
  if (across != nullptr && across->distributed()) addAcross(pixels, *across);
  resolve(size, light);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kSumsBinding, 0);
  glUseProgram(0);
}

// The small sprites, each by one invocation, which lists the large ones; then the large ones, a
// work group each.
void SpriteSplat::addSprites(std::size_t bodyCount, const gl::UniformProgram& smallSprites,
                             const gl::UniformProgram& largeSprites, glm::ivec2 size) {
  const GLuint noLargeSpritesYet[3] = {0, 1, 1};  // the indirect dispatch's x, y and z
  glNamedBufferSubData(largeSprites_.id(), 0, sizeof noLargeSpritesYet, noLargeSpritesYet);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLargeSpritesBinding, largeSprites_.id());
  // The compute engines write the state as images.
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);
  for (const gl::UniformProgram* program : {&smallSprites, &largeSprites}) {
    program->setInt("uBodyCount", int(bodyCount));
    program->setIVec2("uPictureSize", size);
    program->setUint("uLargeCapacity", largeCapacity_);
  }
  glUseProgram(smallSprites.id());
  GLint mostGroups = 65535;
  glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &mostGroups);
  glDispatchCompute(std::min(groupsFor(bodyCount, kSpritesPerGroup), GLuint(mostGroups)), 1, 1);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT);
  glUseProgram(largeSprites.id());
  glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, largeSprites_.id());
  glDispatchComputeIndirect(0);
  glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, 0);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLargeSpritesBinding, 0);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
}

// A channel's low and high words are, in memory, one little-endian 64-bit integer: summed across
// the ranks as one (a sum below 2^63, far above any picture's light).
void SpriteSplat::addAcross(std::size_t pixels, const Ranks& ranks) {
  static_assert(std::endian::native == std::endian::little && kWordsPerPixel == 6);
  acrossSums_.resize(pixels * 3);  // kept: a picture a step, with trails
  const auto bytes = GLsizeiptr(acrossSums_.size() * sizeof(std::int64_t));
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glGetNamedBufferSubData(sums_.id(), 0, bytes, acrossSums_.data());
  ranks.sum(acrossSums_);
  glNamedBufferSubData(sums_.id(), 0, bytes, acrossSums_.data());
}

void SpriteSplat::resolve(glm::ivec2 size, GLuint light) {
  glUseProgram(resolveProgram_.id());
  resolveProgram_.setIVec2("uPictureSize", size);
  glBindImageTexture(kLightImageUnit, light, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA16F);
  glDispatchCompute(groupsFor(std::size_t(size.x), kResolveTile),
                    groupsFor(std::size_t(size.y), kResolveTile), 1);
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT);
  glBindImageTexture(kLightImageUnit, 0, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA16F);
}

}  // namespace nbody
