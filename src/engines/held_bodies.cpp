#include "engines/held_bodies.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>

#include "engines/rank_exchange.h"
#include "gl/desktop_calls.h"
#include "gl/limits.h"
#include "gl/texture_rows.h"

namespace nbody {
namespace {

// A held body's record as gatherInto moves it: its ID, position and mass, velocity (9 words).
constexpr std::size_t kRecordBytes = 36;
constexpr std::size_t kGatherThreads = 256;  // held_gather.comp's work group
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
  const GLuint buffer = gl::ensureBuffer(ids_, std::max<std::size_t>(ids.size(), 1) * 4);
  if (!ids.empty()) glNamedBufferSubData(buffer, 0, GLsizeiptr(ids.size() * 4), ids.data());
  count_ = ids.size();
}

glm::ivec2 HeldBodies::sizeFor(std::size_t count) const {
  const std::size_t texels = textures_.texelCount();  // 0 before the first allocation
  if (texels > 0 && count <= texels && texels <= 2 * count + std::size_t(textures_.size().x))
    return textures_.size();
  return StageTextures::sizeFor(count + count / 8 + 1, gl::limits().maxTextureSize);
}

void HeldBodies::heldNow(GLuint source, std::size_t count) {
  const GLuint ids = gl::ensureBuffer(ids_, std::max<std::size_t>(count, 1) * 4);
  if (count > 0) glCopyNamedBufferSubData(source, ids, 0, 0, GLsizeiptr(count * 4));
  count_ = count;
}

std::vector<std::uint32_t> HeldBodies::readIds() const {
  std::vector<std::uint32_t> held(count_);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  if (count_ > 0) glGetNamedBufferSubData(ids(), 0, GLsizeiptr(count_ * 4), held.data());
  return held;
}

// held_gather.comp over `count` records: this rank's bodies from `first` on packed (PACK 1), or
// records stored (PACK 0).
void HeldBodies::runGather(bool pack, std::size_t first, std::size_t count) {
  std::optional<gl::UniformProgram>& program = pack ? pack_ : store_;
  if (!program)
    program.emplace(
        gl::buildProgram({{GL_COMPUTE_SHADER, {"held_gather.comp"}}}, {{"PACK", pack ? 1 : 0}}));
  if (count == 0) return;
  glUseProgram(program->id());
  program->setUint("uCount", count);
  program->setUint("uFirst", first);
  const std::size_t groups = (count + kGatherThreads - 1) / kGatherThreads;
  const std::size_t columns = std::min<std::size_t>(groups, 65535);
  glDispatchCompute(GLuint(columns), GLuint((groups + columns - 1) / columns), 1);
}

void HeldBodies::gatherInto(StageTextures& full, std::size_t bodyCount, const Ranks& ranks,
                            std::size_t pieceBytes) {
  std::vector<std::int64_t> counts(std::size_t(ranks.count()), 0);
  counts[std::size_t(ranks.rank())] = std::int64_t(count_);
  ranks.sum(counts);
  const std::vector<std::size_t> units(counts.begin(), counts.end());
  const std::size_t below = std::accumulate(units.begin(), units.begin() + ranks.rank(),
                                            std::size_t(0)),
                    total = std::accumulate(units.begin(), units.end(), std::size_t(0));
  if (total != bodyCount) throw std::logic_error("the ranks hold not every body once");
  const std::size_t block =
      pieceBytes > 0 ? pieceBytes : std::size_t(gl::limits().maxShaderStorageBlockBytes);
  const std::size_t piece = std::max<std::size_t>(block / kRecordBytes, 1);  // records
  const GLuint records = gl::ensureBuffer(records_, std::min(total, piece) * kRecordBytes);
  std::byte* all = parcel_.reserve(total * kRecordBytes);
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);  // the update's image stores to the state
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, records);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, ids());
  glBindTextureUnit(0, textures_.basePositionMass());
  glBindTextureUnit(1, textures_.baseVelocity());
  for (std::size_t first = 0; first < count_; first += piece) {
    const std::size_t count = std::min(piece, count_ - first);
    runGather(true, first, count);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glCopyNamedBufferSubData(records, parcel_.buffer(), 0, GLintptr((below + first) * kRecordBytes),
                             GLsizeiptr(count * kRecordBytes));
  }
  parcel_.fence();
  parcel_.wait();
  ranks.allGather({all, total * kRecordBytes}, units, kRecordBytes);
  glBindImageTexture(0, full.basePositionMass(), 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32F);
  glBindImageTexture(1, full.baseVelocity(), 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32F);
  for (std::size_t first = 0; first < total; first += piece) {
    const std::size_t count = std::min(piece, total - first);
    // The last piece's stores read the records before this copy overwrites them.
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glCopyNamedBufferSubData(parcel_.buffer(), records, GLintptr(first * kRecordBytes), 0,
                             GLsizeiptr(count * kRecordBytes));
    runGather(false, 0, count);
  }
  parcel_.fence();  // the next gather's reserve waits for these copies
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT |
                  GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT |
                  GL_PIXEL_BUFFER_BARRIER_BIT);
  glUseProgram(0);  // may run after the engine's passes ended (deferGathering)
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
