#include "engines/held_bodies.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "engines/rank_exchange.h"
#include "gl/desktop_calls.h"
#include "gl/limits.h"
#include "gl/state_access.h"
#include "gl/texture_rows.h"

namespace nbody {
namespace {

// A held body's record as gatherInto moves it: its ID, position and mass, velocity (9 words).
constexpr std::size_t kRecordBytes = 36;
constexpr std::size_t kGatherThreads = 256;  // held_gather.comp's work group
// A held body's texel, with its ID.
struct TexelRecord {
  std::uint32_t id;
  glm::vec4 texel;
};

// Work groups of kGatherThreads over `count` records.
void dispatchRecords(std::size_t count) {
  gl::dispatchRows((count + kGatherThreads - 1) / kGatherThreads);
}

// Where in `held` (ascending) each of its IDs [first, last) lies: [lo, hi).
std::pair<std::size_t, std::size_t> heldBetween(const std::vector<std::uint32_t>& held,
                                                std::size_t first, std::size_t last) {
  const auto at = [&](std::size_t id) {
    return std::size_t(std::lower_bound(held.begin(), held.end(), id) - held.begin());
  };
  return {at(first), at(last)};
}

}  // namespace

HeldBodies::HeldBodies(const State& state, int wholeWidth, const Ranks& ranks) {
  const BodyRange rows =
      shareOut(state.size(), std::size_t(wholeWidth), ranks.count())[std::size_t(ranks.rank())];
  std::vector<std::uint32_t> ids(rows.size());
  std::iota(ids.begin(), ids.end(), std::uint32_t(rows.first));
  hold(state, rows.first, rows.last, ids);
}

HeldBodies::HeldBodies(const State& rows, std::span<const std::uint64_t> indices) {
  if (indices.size() != rows.size())
    throw std::logic_error("a part of " + std::to_string(rows.size()) + " bodies with " +
                           std::to_string(indices.size()) + " indices");
  std::vector<std::uint32_t> ids(indices.size());
  for (std::size_t k = 0; k < ids.size(); ++k) {
    if (indices[k] > std::numeric_limits<std::uint32_t>::max() ||
        (k > 0 && indices[k] <= indices[k - 1]))
      throw std::logic_error("a part's indices ascend and are below 2^32: " +
                             std::to_string(indices[k]) + " at " + std::to_string(k));
    ids[k] = std::uint32_t(indices[k]);
  }
  hold(rows, 0, rows.size(), ids);
}

void HeldBodies::hold(const State& state, std::size_t first, std::size_t last,
                      std::span<const std::uint32_t> ids) {
  textures_.allocate(sizeFor(last - first));
  textures_.writeBase(StageTextures::baseTexelsOf(state, first, last, textures_.texelCount()));
  const GLuint buffer = gl::ensureBuffer(ids_, std::max<std::size_t>(ids.size(), 1) * 4);
  if (!ids.empty()) glNamedBufferSubData(buffer, 0, GLsizeiptr(ids.size() * 4), ids.data());
  count_ = ids.size();
}

HeldBodies::HeldBodies(const StageTextures& full, std::size_t bodyCount, const Ranks& ranks)
    : HeldBodies(full.download(bodyCount), full.size().x, ranks) {}

glm::ivec2 HeldBodies::sizeFor(std::size_t count) const {
  const std::size_t texels = textures_.texelCount();  // 0 before the first allocation
  if (texels > 0 && count <= texels && texels <= 2 * count + std::size_t(textures_.size().x))
    return textures_.size();
  return StageTextures::sizeFor(withRoom(count), gl::limits().maxTextureSize);
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
    program.emplace(gl::buildProgram({{GL_COMPUTE_SHADER, {"group_rows.glsl", "held_gather.comp"}}},
                                     {{"PACK", pack ? 1 : 0}}));
  if (count == 0) return;
  glUseProgram(program->id());
  program->setUint("uCount", count);
  program->setUint("uFirst", first);
  dispatchRecords(count);
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
  std::vector<TexelRecord> own(count_);
  for (std::size_t i = 0; i < count_; ++i) own[i] = {ids[i], texels[i]};
  std::vector<glm::dvec3> accelerations(bodyCount, glm::dvec3(0.0));
  for (const TexelRecord& body : gatherOnEveryRank(ranks, std::span<const TexelRecord>(own)))
    accelerations.at(body.id) = glm::dvec3(glm::vec3(body.texel));
  return accelerations;
}

std::vector<glm::vec4> HeldBodies::pick(GLuint texture, bool array,
                                        std::span<const std::uint32_t> indices, std::size_t first,
                                        std::size_t count) {
  const bool range = indices.empty();
  if (!range) count = indices.size();
  std::vector<glm::vec4> texels(count);
  if (count == 0) return texels;
  std::optional<gl::UniformProgram>& program = pickers_[range ? 1 : 0][array ? 1 : 0];
  if (!program)
    program.emplace(gl::buildProgram({{GL_COMPUTE_SHADER, {"group_rows.glsl", "texel_pick.comp"}}},
                                     {{"RANGE", range ? 1 : 0}, {"ARRAY", array ? 1 : 0}}));
  if (!range) {
    const GLuint buffer = gl::ensureBuffer(pickIndices_, count * 4);
    glNamedBufferSubData(buffer, 0, GLsizeiptr(count * 4), indices.data());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffer);
  }
  const GLuint picked = gl::ensureBuffer(picked_, count * 16);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, picked);
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);  // the update's image stores to the state
  glBindTextureUnit(0, texture);
  glUseProgram(program->id());
  program->setUint("uCount", count);
  program->setUint("uFirst", first);
  dispatchRecords(count);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glGetNamedBufferSubData(picked, 0, GLsizeiptr(count * 16), texels.data());
  glUseProgram(0);
  return texels;
}

std::vector<glm::vec4> HeldBodies::texelsOf(GLuint texture, bool array,
                                            std::span<const std::uint32_t> ids,
                                            const Ranks& ranks) {
  const std::vector<std::uint32_t> held = readIds();
  std::vector<std::uint32_t> indices;
  std::vector<TexelRecord> own;
  for (const std::uint32_t id : ids) {
    const std::size_t at = heldBetween(held, id, id).first;
    if (at == held.size() || held[at] != id) continue;
    indices.push_back(std::uint32_t(at));
    own.push_back({id, glm::vec4(0.0f)});
  }
  const std::vector<glm::vec4> texels = pick(texture, array, indices);
  for (std::size_t k = 0; k < own.size(); ++k) own[k].texel = texels[k];
  std::vector<TexelRecord> all = gatherOnEveryRank(ranks, std::span<const TexelRecord>(own));
  std::sort(all.begin(), all.end(),
            [](const TexelRecord& a, const TexelRecord& b) { return a.id < b.id; });
  std::vector<glm::vec4> result;
  for (const std::uint32_t id : ids) {
    const auto found = std::lower_bound(
        all.begin(), all.end(), id, [](const TexelRecord& r, std::uint32_t v) { return r.id < v; });
    if (found == all.end() || found->id != id)
      throw std::logic_error("body " + std::to_string(id) + " is held by no rank");
    result.push_back(found->texel);
  }
  return result;
}

void HeldBodies::forEachPositionPiece(std::size_t bodyCount, const Ranks& ranks,
                                      std::size_t pieceBodies,
                                      const std::function<void(GLuint, std::size_t)>& piece) {
  const std::vector<std::uint32_t> held = readIds();
  const auto largest = std::size_t(gl::limits().maxTextureSize);  // a piece fits one texture
  pieceBodies = std::clamp<std::size_t>(pieceBodies, 1, largest * largest);
  const glm::ivec2 size = StageTextures::sizeFor(
      std::min(pieceBodies, std::max<std::size_t>(bodyCount, 1)), int(largest));
  const gl::Texture texture = gl::nearestTexture(GL_TEXTURE_2D, GL_RGBA32F, {size.x, size.y, 1});
  std::vector<glm::vec4> texels(std::size_t(size.x) * std::size_t(size.y), glm::vec4(0.0f));
  for (std::size_t first = 0; first < bodyCount; first += pieceBodies) {
    const std::size_t last = std::min(first + pieceBodies, bodyCount);
    const auto [lo, hi] = heldBetween(held, first, last);
    const std::vector<glm::vec4> mine = pick(textures_.basePositionMass(), false, {}, lo, hi - lo);
    std::vector<TexelRecord> own(hi - lo);
    for (std::size_t k = 0; k < own.size(); ++k) own[k] = {held[lo + k], mine[k]};
    const std::vector<TexelRecord> all =
        gatherOnEveryRank(ranks, std::span<const TexelRecord>(own));
    if (all.size() != last - first) throw std::logic_error("the ranks hold not every body once");
    for (const TexelRecord& body : all) texels.at(body.id - first) = body.texel;
    gl::writeTextureRows(texture.id(), {{size.x, size.y, 1}, GL_RGBA, GL_FLOAT, 16}, texels.data());
    piece(texture.id(), last - first);
  }
}

}  // namespace nbody
