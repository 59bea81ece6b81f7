#include "engines/tree/tree_migrate.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engines/rank_exchange.h"
#include "engines/tree/tree_layout.h"
#include "gl/desktop_calls.h"

namespace nbody::tree {
namespace {

constexpr std::uint32_t kMovedBit = 0x80000000u;  // tree_fetch.comp's MOVED_BIT
constexpr std::size_t kTexelBytes = 16;

gl::UniformProgram& fetchProgram(Kernels& kernels, int mode, bool array = false,
                                 bool pieces = false) {
  return kernels.use(Kernel::fetch,
                     {{"MODE", mode}, {"ARRAY", array ? 1 : 0}, {"PIECES", pieces ? 1 : 0}});
}

// Piece `piece` of `pieces` of a list of `count` bodies: [first, end).
std::pair<std::size_t, std::size_t> shareOf(std::size_t count, std::size_t piece,
                                            std::size_t pieces) {
  return {count * piece / pieces, count * (piece + 1) / pieces};
}

// A held texture as tree_fetch.comp's MODE 0 and 4 read it: image unit 1.
void bindOld(const StageTextures::BodyTexture& texture) {
  glBindImageTexture(1, texture.texture->id(), 0,
                     texture.target == GL_TEXTURE_2D_ARRAY ? GL_TRUE : GL_FALSE, 0, GL_READ_ONLY,
                     GL_RGBA32F);
}

}  // namespace

// The home's IDs in its sorted order, into sorted_ (tree_fetch.comp, MODE 1).
void SegmentIds::sortHomeIds(Kernels& kernels, IdList home) {
  const GLuint sorted = ensureBuffer(sorted_, std::max<std::size_t>(home.count, 1) * 4);
  if (home.count == 0) return;
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetMarksBinding, home.buffer);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetListsBinding, sorted);
  gl::UniformProgram& program = fetchProgram(kernels, 1);
  program.setUint("uCount", home.count);
  kernels.dispatch(ceilDiv(home.count, kElementThreads));
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
}

// The sorted home's IDs but this rank's own part: the parts of the ranks below it, then above.
std::vector<std::uint32_t> SegmentIds::readOthersParts() {
  const std::size_t above = ownFirst_ + own_;
  std::vector<std::uint32_t> others(homeCount_ - own_);
  gl::readThrough(readback_, sorted_.buffer.id(), 0, ownFirst_ * 4, others.data());
  gl::readThrough(readback_, sorted_.buffer.id(), above * 4, (homeCount_ - above) * 4,
                  others.data() + ownFirst_);
  return others;
}

IdList SegmentIds::migrate(Kernels& kernels, IdList home, std::span<const std::size_t> sendCounts,
                           std::size_t bodyCount, const Ranks& ranks, std::size_t windowBytes,
                           const Lap& lap) {
  const std::size_t rank = std::size_t(ranks.rank());
  homeCount_ = home.count;
  sendCounts_.assign(sendCounts.begin(), sendCounts.end());
  ownFirst_ = std::accumulate(sendCounts_.begin(), sendCounts_.begin() + std::ptrdiff_t(rank),
                              std::size_t(0));
  own_ = std::exchange(sendCounts_[rank], 0);
  sortHomeIds(kernels, home);
  lap("ids-sort");
  const std::vector<std::uint32_t> others = readOthersParts();
  const std::vector<std::uint32_t> received = allToAllRecords<std::uint32_t>(
      ranks, std::as_bytes(std::span(others)), sendCounts_, receivedCounts_);
  const GLuint arrived = ensureBuffer(arrivedIds_, std::max<std::size_t>(received.size(), 1) * 4);
  if (!received.empty())
    glNamedBufferSubData(arrived, 0, GLsizeiptr(received.size() * 4), received.data());
  arrivedCount_ = received.size();
  lap("ids-send");
  // At most one ID of each marked: the walker's list and its sources fit own_ + arrivals.
  const std::size_t most = std::max<std::size_t>(own_ + received.size(), 1) * 4;
  walkerList_ = {ensureBuffer(walker_, most), 0};
  ensureBuffer(sources_, most);
  const std::size_t window = std::min(std::max<std::size_t>(windowBytes / 4, 1), bodyCount);
  ensureBuffer(marks_, std::max<std::size_t>(window, 1) * 4);
  for (std::size_t first = 0; first < bodyCount; first += window)
    listWindow(kernels, {first, std::min(window, bodyCount - first)}, lap);
  if (ranks.maximum(walkerList_.count != own_ + received.size() ? 1 : 0) != 0)
    throw std::logic_error("a walker's IDs are not its segment's bodies, each once");  // all alike
  return walkerList_;
}

// The walker's IDs of `window` (ascending, after those of the windows below it) and their
// sources: the marks of the own part's and the arrived IDs in the window, listed, then the table.
void SegmentIds::listWindow(Kernels& kernels, SlotWindow window, const Lap& lap) {
  const GLuint marks = marks_.buffer.id();
  const std::uint32_t zero = 0;
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);  // the last window's table, written by a shader
  glClearNamedBufferSubData(marks, GL_R32UI, 0, GLsizeiptr(window.slots * 4), GL_RED_INTEGER,
                            GL_UNSIGNED_INT, &zero);
  lists_.setMarks(kernels, marks, 0, sorted_.buffer.id(), ownFirst_, own_, 1, window);
  lists_.setMarks(kernels, marks, 0, arrivedIds_.buffer.id(), 0, arrivedCount_, 1, window);
  const std::size_t regions[] = {0};
  const std::size_t listed =
      lists_.list(kernels, marks, regions, window.slots, 1, window.first)[0][0];
  const std::size_t before = walkerList_.count;
  if (listed > 0)
    glCopyNamedBufferSubData(lists_.lists(), walkerList_.buffer, 0, GLintptr(before * 4),
                             GLsizeiptr(listed * 4));
  walkerList_.count += listed;
  lap("ids-list");
  findSources(kernels, window, before, listed);
  lap("ids-sources");
}

// Where each of the walker's bodies of `window` (its `listed` IDs from `before` on) is now, into
// sources_: the home's local index of its own part's (kValuesIn beside their sorted IDs),
// MOVED_BIT | k for the k-th received; through a table by ID of the window (the marks' words,
// listed already).
void SegmentIds::findSources(Kernels& kernels, SlotWindow window, std::size_t before,
                             std::size_t listed) {
  const GLuint table = marks_.buffer.id();
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetMarksBinding, table);
  gl::UniformProgram& scatter = fetchProgram(kernels, 2);
  const auto scatterKeys = [&](GLuint keys, std::size_t first, std::size_t count,
                               std::uint32_t flag) {
    if (count == 0) return;
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetChunksBinding, keys);
    scatter.setUint("uCount", count);
    scatter.setUint("uFirst", first);
    scatter.setUint("uFlag", flag);
    scatter.setUint("uWindowFirst", window.first);
    scatter.setUint("uWindowSlots", window.slots);
    kernels.dispatch(ceilDiv(count, kElementThreads));
  };
  scatterKeys(sorted_.buffer.id(), ownFirst_, own_, 0);
  scatterKeys(arrivedIds_.buffer.id(), 0, arrivedCount_, kMovedBit);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
  if (listed == 0) return;
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetChunksBinding, walkerList_.buffer);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetListsBinding, sources_.buffer.id());
  gl::UniformProgram& gather = fetchProgram(kernels, 3);
  gather.setUint("uCount", listed);
  gather.setUint("uFirst", before);
  gather.setUint("uWindowFirst", window.first);
  kernels.dispatch(ceilDiv(listed, kElementThreads));
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
}

// The texels of `textures` of the bodies that leave sent, those that arrive received into
// arrived_ (a body's texels together, in the order of `textures`).
void SegmentIds::moveTextures(Kernels& kernels,
                              std::span<const StageTextures::BodyTexture> textures,
                              const Ranks& ranks, const Lap& lap, std::size_t arriving) {
  const std::size_t unit = textures.size() * kTexelBytes;
  const std::vector<std::byte> sent = packLeaving(kernels, textures, lap);
  lap("move-read");
  std::vector<std::byte> received(arriving * unit);
  ranks.allToAllInto(sent, sendCounts_, receivedCounts_, unit, received);
  const GLuint arrived = ensureBuffer(arrived_, std::max<std::size_t>(received.size(), 16));
  if (!received.empty())
    glNamedBufferSubData(arrived, 0, GLsizeiptr(received.size()), received.data());
  lap("move-send");
}

// The texels of the home's bodies that leave (sorted positions but the own part's), a parcel of
// one texel a texture each, in the order migrate sent their IDs.
std::vector<std::byte> SegmentIds::packLeaving(Kernels& kernels,
                                               std::span<const StageTextures::BodyTexture> textures,
                                               const Lap& lap) {
  const std::size_t leaving = homeCount_ - own_, stride = textures.size();
  std::vector<std::byte> parcel(leaving * stride * kTexelBytes);
  if (leaving == 0) return parcel;
  const GLuint buffer = ensureBuffer(parcel_, parcel.size());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetListsBinding, buffer);
  for (std::size_t t = 0; t < stride; ++t) {
    bindOld(textures[t]);
    gl::UniformProgram& program =
        fetchProgram(kernels, 0, textures[t].target == GL_TEXTURE_2D_ARRAY);
    program.setUint("uCount", leaving);
    program.setUint("uStride", stride);
    program.setUint("uOffset", t);
    program.setUint("uBelow", ownFirst_);
    program.setUint("uOwn", own_);
    kernels.dispatch(ceilDiv(leaving, kElementThreads));
  }
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  lap("move-pack");
  gl::readThrough(leaving_, buffer, 0, parcel.size(), parcel.data());
  return parcel;
}

void SegmentIds::moveState(Kernels& kernels, HeldBodies& held, const Ranks& ranks, const Lap& lap,
                           std::size_t pieceBytes) {
  glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);  // the update's image stores to the state
  lap("move-barrier");
  const std::vector<StageTextures::BodyTexture> textures = held.textures().bodyTextures();
  const std::size_t arriving =
      std::accumulate(receivedCounts_.begin(), receivedCounts_.end(), std::size_t(0));
  // Agreed: every rank moves the same batches, each one collective.
  const std::size_t texture =
      std::size_t(ranks.maximum(std::int64_t(std::max(homeCount_ - own_, arriving)))) * kTexelBytes;
  const glm::ivec2 oldSize = held.textures().size(), size = held.sizeFor(walkerList_.count);
  if (texture > pieceBytes) {
    // A piece holds a share of each rank's list: a body more than its part of them, at most, a
    // rank.
    const std::size_t slack = 2 * std::size_t(ranks.count()) * kTexelBytes;
    if (pieceBytes <= 2 * slack)
      throw std::logic_error("pieces of " + std::to_string(pieceBytes) + " bytes are too small");
    const std::size_t pieces = ceilDiv(texture, pieceBytes - slack);
    for (const StageTextures::BodyTexture& one : textures)
      moveInPieces(kernels, one, ranks, pieces, oldSize, size);
    lap("move-pieces");
    held.textures().resizedTo(size);
    return held.heldNow(walkerList_.buffer, walkerList_.count);
  }
  const std::size_t batch = texture == 0 ? textures.size() : pieceBytes / texture;
  for (std::size_t first = 0; first < textures.size(); first += batch) {
    const auto some = std::span(textures).subspan(first, std::min(batch, textures.size() - first));
    moveTextures(kernels, some, ranks, lap, arriving);
    layOut(kernels, some, oldSize, size);
  }
  held.textures().resizedTo(size);
  held.heldNow(walkerList_.buffer, walkerList_.count);
}

// Each texture (of `oldSize`) replaced by one of `size` holding the walker's bodies
// (tree_fetch.comp, MODE 4).
void SegmentIds::layOut(Kernels& kernels, std::span<const StageTextures::BodyTexture> textures,
                        glm::ivec2 oldSize, glm::ivec2 size) {
  const std::size_t texels = std::size_t(size.x) * std::size_t(size.y);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetMarksBinding, sources_.buffer.id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetChunksBinding, arrived_.buffer.id());
  for (std::size_t t = 0; t < textures.size(); ++t) {
    const bool array = textures[t].target == GL_TEXTURE_2D_ARRAY;
    gl::Texture fresh = takeTexture(textures[t].target, size);
    bindOld(textures[t]);
    glBindImageTexture(0, fresh.id(), 0, array ? GL_TRUE : GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32F);
    gl::UniformProgram& program = fetchProgram(kernels, 4, array);
    program.setUint("uCount", walkerList_.count);
    program.setUint("uTexels", texels);
    program.setUint("uStride", textures.size());
    program.setUint("uOffset", t);
    kernels.dispatch(ceilDiv(texels, kElementThreads));
    // Before the next texture's pass may write into the texture this one read (a spare now).
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
    std::swap(*textures[t].texture, fresh);
    spares_[textures[t].target] = {std::move(fresh), oldSize};
  }
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT |
                  GL_TEXTURE_UPDATE_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT);
}

SegmentIds::MovePiece SegmentIds::pieceOf(std::size_t piece, std::size_t pieces,
                                          std::size_t rank) const {
  MovePiece out;
  std::size_t sorted = 0;  // where each rank's list starts among the home's sorted bodies
  for (std::size_t r = 0; r < sendCounts_.size(); ++r) {
    const auto [first, end] = shareOf(sendCounts_[r], piece, pieces);
    out.sendFirst.push_back(sorted + first);
    out.sendCounts.push_back(end - first);
    out.sent += end - first;
    sorted += sendCounts_[r] + (r == rank ? own_ : 0);
  }
  std::size_t arrivals = 0;  // where each sender's bodies start among all received
  for (const std::size_t count : receivedCounts_) {
    const auto [first, end] = shareOf(count, piece, pieces);
    for (const std::size_t word : {arrivals, first, end, out.received})
      out.senders.push_back(std::uint32_t(word));
    out.receivedCounts.push_back(end - first);
    out.received += end - first;
    arrivals += count;
  }
  return out;
}

// One texture laid out anew, its moving bodies sent and received in `pieces` pieces.
void SegmentIds::moveInPieces(Kernels& kernels, const StageTextures::BodyTexture& texture,
                              const Ranks& ranks, std::size_t pieces, glm::ivec2 oldSize,
                              glm::ivec2 size) {
  gl::Texture fresh = takeTexture(texture.target, size);
  for (std::size_t p = 0; p < pieces; ++p) {
    const MovePiece piece = pieceOf(p, pieces, std::size_t(ranks.rank()));
    sendPiece(kernels, texture, piece, ranks);
    layOutPiece(kernels, texture, fresh.id(), piece, p == 0, size);
  }
  glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
  std::swap(*texture.texture, fresh);
  spares_[texture.target] = {std::move(fresh), oldSize};
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT |
                  GL_TEXTURE_UPDATE_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT);
}

// The piece's share of the leaving bodies' texels of `texture` packed (each rank's share in rank
// order), sent, and what arrives received into arrived_.
void SegmentIds::sendPiece(Kernels& kernels, const StageTextures::BodyTexture& texture,
                           const MovePiece& piece, const Ranks& ranks) {
  std::vector<std::byte> sent(piece.sent * kTexelBytes), received(piece.received * kTexelBytes);
  const GLuint buffer = ensureBuffer(parcel_, std::max<std::size_t>(sent.size(), kTexelBytes));
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetListsBinding, buffer);
  bindOld(texture);
  gl::UniformProgram& program =
      fetchProgram(kernels, 0, texture.target == GL_TEXTURE_2D_ARRAY, true);
  program.setUint("uStride", 1);
  program.setUint("uOffset", 0);
  std::size_t packed = 0;
  for (std::size_t r = 0; r < piece.sendCounts.size(); ++r) {
    if (piece.sendCounts[r] == 0) continue;
    program.setUint("uCount", piece.sendCounts[r]);
    program.setUint("uSortedFirst", piece.sendFirst[r]);
    program.setUint("uParcelFirst", packed);
    kernels.dispatch(ceilDiv(piece.sendCounts[r], kElementThreads));
    packed += piece.sendCounts[r];
  }
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  if (!sent.empty()) gl::readThrough(leaving_, buffer, 0, sent.size(), sent.data());
  ranks.allToAllInto(sent, piece.sendCounts, piece.receivedCounts, kTexelBytes, received);
  const GLuint arrived = ensureBuffer(arrived_, std::max<std::size_t>(received.size(), 16));
  if (!received.empty())
    glNamedBufferSubData(arrived, 0, GLsizeiptr(received.size()), received.data());
}

// The piece's texels of `texture` into `fresh` (of `size`): the own bodies' and the padding with
// the first piece, the moved bodies' that arrived in this one (tree_fetch.comp, MODE 4, PIECES 1).
void SegmentIds::layOutPiece(Kernels& kernels, const StageTextures::BodyTexture& texture,
                             GLuint fresh, const MovePiece& piece, bool first, glm::ivec2 size) {
  const std::size_t texels = std::size_t(size.x) * std::size_t(size.y);
  const GLuint senders = ensureBuffer(senders_, piece.senders.size() * 4);
  glNamedBufferSubData(senders, 0, GLsizeiptr(piece.senders.size() * 4), piece.senders.data());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetMarksBinding, sources_.buffer.id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetChunksBinding, arrived_.buffer.id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetListsBinding, senders);
  const bool array = texture.target == GL_TEXTURE_2D_ARRAY;
  bindOld(texture);
  glBindImageTexture(0, fresh, 0, array ? GL_TRUE : GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32F);
  gl::UniformProgram& program = fetchProgram(kernels, 4, array, true);
  program.setUint("uCount", walkerList_.count);
  program.setUint("uTexels", texels);
  program.setUint("uStride", 1);
  program.setUint("uOffset", 0);
  program.setUint("uSenders", piece.senders.size() / 4);
  program.setUint("uOwnToo", first ? 1 : 0);
  kernels.dispatch(ceilDiv(texels, kElementThreads));
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);  // before the next piece rewrites the buffers
}

void SegmentIds::release() {
  gl::HostParcel readback = std::move(readback_), leaving = std::move(leaving_);
  *this = SegmentIds();
  readback_ = std::move(readback);
  leaving_ = std::move(leaving);
}

gl::Texture SegmentIds::takeTexture(GLenum target, glm::ivec2 size) {
  Spare& spare = spares_[target];
  if (spare.texture.id() != 0 && spare.size == size) return std::move(spare.texture);
  spare = {};  // of another size: freed before the new one is made
  return gl::nearestTexture(target, GL_RGBA32F, {size.x, size.y, 1});
}

}  // namespace nbody::tree
