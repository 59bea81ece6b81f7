#include "engines/held_bodies.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "engines/rank_exchange.h"
#include "gl/desktop_calls.h"
#include "gl/limits.h"
#include "gl/texture_rows.h"

namespace nbody {
namespace {

// A held body's current state with its ID, as gatherInto moves it.
struct BodyRecord {
  std::uint32_t id;
  glm::vec4 positionMass, velocity;
};
struct AccelerationRecord {
  std::uint32_t id;
  glm::vec4 acceleration;
};

std::vector<glm::vec4> padded(std::vector<glm::vec4> texels, std::size_t texelCount) {
  texels.resize(texelCount, glm::vec4(0.0f));
  return texels;
}

}  // namespace

HeldBodies::HeldBodies(const StageTextures& full, std::size_t bodyCount, const Ranks& ranks) {
  const BodyRange rows =
      shareOut(bodyCount, std::size_t(full.size().x), ranks.count())[std::size_t(ranks.rank())];
  StageTextures::BaseTexels all = full.readBase(bodyCount);
  textures_.allocate(sizeFor(rows.size()));
  const auto part = [&](const std::vector<glm::vec4>& texels) {
    return padded(
        {texels.begin() + std::ptrdiff_t(rows.first), texels.begin() + std::ptrdiff_t(rows.last)},
        textures_.texelCount());
  };
  textures_.writeBase({part(all.positionMass), part(all.velocity)});
  std::vector<std::uint32_t> ids(rows.size());
  std::iota(ids.begin(), ids.end(), std::uint32_t(rows.first));
  gl::Buffer source = gl::Buffer::create();
  glNamedBufferStorage(source.id(), GLsizeiptr(std::max<std::size_t>(ids.size(), 1) * 4),
                       ids.empty() ? nullptr : ids.data(), 0);
  heldNow(source.id(), ids.size());
}

glm::ivec2 HeldBodies::sizeFor(std::size_t count) const {
  const std::size_t texels = textures_.texelCount();
  if (count <= texels && texels <= 2 * count + std::size_t(textures_.size().x))
    return textures_.size();
  return StageTextures::sizeFor(count + count / 8 + 1, gl::limits().maxTextureSize);
}

void HeldBodies::heldNow(GLuint source, std::size_t count) {
  if (ids_.id() == 0 || idCapacity_ < count) {
    idCapacity_ = std::max<std::size_t>(count, 1);
    ids_ = gl::Buffer::create();
    glNamedBufferStorage(ids_.id(), GLsizeiptr(idCapacity_ * 4), nullptr, GL_DYNAMIC_STORAGE_BIT);
  }
  if (count > 0) glCopyNamedBufferSubData(source, ids_.id(), 0, 0, GLsizeiptr(count * 4));
  count_ = count;
}

std::vector<std::uint32_t> HeldBodies::readIds() const {
  std::vector<std::uint32_t> ids(count_);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  if (count_ > 0) glGetNamedBufferSubData(ids_.id(), 0, GLsizeiptr(count_ * 4), ids.data());
  return ids;
}

void HeldBodies::gatherInto(StageTextures& full, std::size_t bodyCount, const Ranks& ranks) const {
  glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT);  // the update's image stores
  const StageTextures::BaseTexels held = textures_.readBase(count_);
  const std::vector<std::uint32_t> ids = readIds();
  std::vector<BodyRecord> own(count_);
  for (std::size_t i = 0; i < count_; ++i)
    own[i] = {ids[i], held.positionMass[i], held.velocity[i]};
  const std::vector<BodyRecord> all = gatherOnEveryRank(ranks, std::span<const BodyRecord>(own));
  if (all.size() != bodyCount) throw std::logic_error("the ranks hold not every body once");
  StageTextures::BaseTexels texels{std::vector<glm::vec4>(full.texelCount(), glm::vec4(0.0f)),
                                   std::vector<glm::vec4>(full.texelCount(), glm::vec4(0.0f))};
  for (const BodyRecord& body : all) {
    texels.positionMass.at(body.id) = body.positionMass;
    texels.velocity.at(body.id) = body.velocity;
  }
  full.writeBase(texels);
}

std::vector<glm::dvec3> HeldBodies::gatherAccelerations(int stage, std::size_t bodyCount,
                                                        const Ranks& ranks) const {
  glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT);
  const glm::ivec2 size = textures_.size();
  std::vector<glm::vec4> texels(textures_.texelCount());
  gl::readTextureRows(textures_.acceleration(stage),
                      {{size.x, size.y, 1}, GL_RGBA, GL_FLOAT, 16, GL_TEXTURE_2D_ARRAY},
                      texels.data());
  const std::vector<std::uint32_t> ids = readIds();
  std::vector<AccelerationRecord> own(count_);
  for (std::size_t i = 0; i < count_; ++i) own[i] = {ids[i], texels[i]};
  std::vector<glm::dvec3> accelerations(bodyCount, glm::dvec3(0.0));
  for (const AccelerationRecord& body :
       gatherOnEveryRank(ranks, std::span<const AccelerationRecord>(own)))
    accelerations.at(body.id) = glm::dvec3(glm::vec3(body.acceleration));
  return accelerations;
}

}  // namespace nbody
