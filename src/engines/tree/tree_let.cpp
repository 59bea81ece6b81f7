#include "engines/tree/tree_let.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "engines/tree/tree_layout.h"
#include "gl/desktop_calls.h"

namespace nbody::tree {
namespace {

constexpr int kLetStack = 4096;          // tree_let.comp's LET_STACK: 16 KiB of shared memory
constexpr std::size_t kHeaderWords = 2;  // tree_let.comp's letOverflow, letUnused

void setLetUniforms(const gl::UniformProgram& program, std::span<const std::size_t> starts,
                    int rank, std::size_t chunks, const TreeSettings& settings,
                    double openingScale2) {
  const std::vector<GLuint> words(starts.begin(), starts.end());
  program.setUint("uBodyCount", starts.back());
  program.setUint("uRank", std::size_t(rank));
  program.setUint("uRanks", starts.size() - 1);
  program.setUints("uStarts", words);
  program.setUint("uChunks", chunks);
  program.setUint("uLeafSize", std::size_t(settings.leafSize));
  program.setUint("uSmallCell", std::size_t(settings.smallCell));
  program.setFloat("uOpeningScale2", openingScale2);
  program.setFloat("uTheta2", settings.theta * settings.theta);
  program.setFloat("uAccuracy", settings.accuracy);
}

}  // namespace

std::size_t letChunkBodies(const TreeSettings& settings) {
  const std::size_t group =
      std::size_t(std::max(settings.groupSize, settings.estimateGroupSize));  // powers of two
  return std::max<std::size_t>(1024, group);
}

std::vector<LetChunk> LetSelection::chunks(Kernels& kernels, const SlotMap& held,
                                           std::size_t chunkBodies, int rank, bool withEstimates) {
  const std::size_t count = ceilDiv(held.count, chunkBodies);
  std::vector<LetChunk> chunks(count);
  if (count == 0) return chunks;
  ensureBuffer(chunks_, count * sizeof(LetChunk));
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetChunksBinding, chunks_.buffer.id());
  gl::UniformProgram& program = kernels.use(Kernel::chunks, {{"ESTIMATES", withEstimates ? 1 : 0}});
  program.setUint("uCount", held.count);
  program.setUint("uChunkBodies", chunkBodies);
  program.setUint("uBodiesBelow", held.bodiesBelow);
  program.setUint("uRank", std::size_t(rank));
  kernels.dispatch(count);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glGetNamedBufferSubData(chunks_.buffer.id(), 0, GLsizeiptr(count * sizeof(LetChunk)),
                          chunks.data());
  return chunks;
}

LetMarks LetSelection::select(Kernels& kernels, const SlotMap& slots,
                              std::span<const LetChunk> chunks, std::span<const std::size_t> starts,
                              int rank, const TreeSettings& settings, double openingScale2) {
  if (starts.size() < 2 || starts.size() > std::size_t(kLetMostRanks) + 1)
    throw std::invalid_argument("a local essential tree is for 1 to 32 ranks");
  const std::size_t words = kHeaderWords + 2 * slots.count;
  ensureBuffer(chunks_, chunks.size_bytes());
  ensureBuffer(marks_, words * 4);
  if (!chunks.empty())
    glNamedBufferSubData(chunks_.buffer.id(), 0, GLsizeiptr(chunks.size_bytes()), chunks.data());
  const std::uint32_t zero = 0;
  glClearNamedBufferSubData(marks_.buffer.id(), GL_R32UI, 0, GLsizeiptr(words * 4), GL_RED_INTEGER,
                            GL_UNSIGNED_INT, &zero);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetChunksBinding, chunks_.buffer.id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetMarksBinding, marks_.buffer.id());
  gl::Defines defines = slotDefines(slots);
  defines.set("LET_STACK", kLetStack)
      .set("OPENING", opensRelative(settings) ? 1 : 0)
      .set("EXPANSION_ORDER", settings.expansionOrder);
  gl::UniformProgram& program = kernels.use(Kernel::let, defines);
  setSlotUniforms(program, slots, starts.back());
  setLetUniforms(program, starts, rank, chunks.size(), settings, openingScale2);
  kernels.dispatch(chunks.size());
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
  std::uint32_t overflow = 0;
  gl::readThrough(readback_, marks_.buffer.id(), 0, 4, &overflow);
  return {slots.first, slots.count, overflow != 0};
}

std::size_t LetParts::bytes() const {
  return nodes.size() * sizeof(LetNode) + bodies.size() * sizeof(LetBody);
}

void LetSelection::packInto(Kernels& kernels, const PackedList& list, Records records,
                            std::size_t firstWord) {
  if (list.count == 0) return;
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetChunksBinding, list.buffer);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetMarksBinding, parcel_.buffer.id());
  gl::UniformProgram& program = kernels.use(Kernel::pack, {{"NODES", int(records)}});
  program.setUint("uCount", list.count);
  program.setUint("uIndexFirst", list.first);
  program.setUint("uRead", list.read);
  program.setUint("uReference", list.reference);
  program.setUint("uFirstWord", firstWord);
  kernels.dispatch(ceilDiv(list.count, kElementThreads));
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
}

template <typename Record>
std::vector<Record> LetSelection::packed(Kernels& kernels, const PackedList& list,
                                         Records records) {
  std::vector<Record> packed(list.count);
  if (list.count == 0) return packed;
  const std::size_t bytes = list.count * sizeof(Record);
  ensureBuffer(parcel_, bytes);
  packInto(kernels, list, records, 0);
  gl::readThrough(readback_, parcel_.buffer.id(), 0, bytes, packed.data());
  return packed;
}

template <typename Record>
std::vector<Record> LetSelection::packed(Kernels& kernels, std::span<const std::uint32_t> slots,
                                         Records records) {
  const GLuint buffer = ensureBuffer(slots_, std::max<std::size_t>(slots.size_bytes(), 4));
  if (!slots.empty()) glNamedBufferSubData(buffer, 0, GLsizeiptr(slots.size_bytes()), slots.data());
  return packed<Record>(kernels, {buffer, 0, slots.size(), 0, 0}, records);
}

LetParts LetSelection::pack(Kernels& kernels, const LetMarks& marks, const TopArea& top,
                            const SlotMap& held, int ranks, const Lap& lap) {
  lists_.setMarks(kernels, marks_.buffer.id(), kHeaderWords, top.heldEverywhere(), 0);
  const std::size_t regions[] = {kHeaderWords, kHeaderWords + marks.count};
  const std::vector<std::vector<std::size_t>> counts =
      lists_.list(kernels, marks_.buffer.id(), regions, marks.count, std::size_t(ranks));
  lap("pack-lists");
  LetParts parts;
  parts.nodeCounts = counts[0];
  parts.bodyCounts = counts[1];
  const std::size_t nodes = std::accumulate(counts[0].begin(), counts[0].end(), std::size_t(0)),
                    bodies = std::accumulate(counts[1].begin(), counts[1].end(), std::size_t(0));
  const std::size_t nodeBytes = nodes * sizeof(LetNode),
                    bytes = nodeBytes + bodies * sizeof(LetBody);
  ensureBuffer(parcel_, bytes);
  packInto(kernels, {lists_.lists(), 0, nodes, 0, marks.first}, Records::nodes, 0);
  packInto(kernels, {lists_.lists(), nodes, bodies, held.bodiesBelow, marks.first}, Records::bodies,
           nodeBytes / 4);
  lap("pack-records");
  std::byte* host = sent_.reserve(bytes);
  if (bytes > 0)
    glCopyNamedBufferSubData(parcel_.buffer.id(), sent_.buffer(), 0, 0, GLsizeiptr(bytes));
  sent_.fence();
  sent_.wait();  // the records in host memory, for MPI
  parts.nodes = {reinterpret_cast<const LetNode*>(host), nodes};
  parts.bodies = {reinterpret_cast<const LetBody*>(host + nodeBytes), bodies};
  return parts;
}

std::vector<FrontierItem> LetSelection::frontier(Kernels& kernels, const TopArea& top,
                                                 const Lap& lap) {
  std::vector<std::uint32_t> nodes, bodies;
  const std::vector<std::uint32_t> held = top.heldFrontier();
  lap("frontier-held");
  for (std::uint32_t reference : held)
    ((reference & kLeafBit) != 0 ? bodies : nodes).push_back(top.heldSlot(reference));
  const std::vector<FrontierItem> nodeItems =
      packed<FrontierItem>(kernels, std::span<const std::uint32_t>(nodes), Records::frontierNodes);
  lap("frontier-nodes");
  const std::vector<LetBody> bodyItems =
      packed<LetBody>(kernels, std::span<const std::uint32_t>(bodies), Records::bodies);
  lap("frontier-bodies");
  std::vector<FrontierItem> items;
  std::size_t node = 0, body = 0;
  for (std::uint32_t reference : held) {
    FrontierItem item{reference, {}};
    if ((reference & kLeafBit) != 0)
      std::copy_n(bodyItems[body++].words.begin(), 4, item.words.begin());
    else
      item.words = nodeItems[node++].words;
    items.push_back(item);
  }
  return items;
}

LetParts LetSelection::exchange(const LetParts& sent, const Ranks& ranks, const Lap& lap) {
  LetParts received;
  received.nodeCounts = ranks.allToAllUnits(sent.nodeCounts);
  received.bodyCounts = ranks.allToAllUnits(sent.bodyCounts);
  lap("send-counts");  // the ranks' first meeting: the wait for the last to pack
  const std::size_t nodes = std::accumulate(received.nodeCounts.begin(), received.nodeCounts.end(),
                                            std::size_t(0)),
                    bodies = std::accumulate(received.bodyCounts.begin(), received.bodyCounts.end(),
                                             std::size_t(0));
  const std::size_t nodeBytes = nodes * sizeof(LetNode),
                    bytes = nodeBytes + bodies * sizeof(LetBody);
  std::byte* host = received_.reserve(bytes);  // once the last round's place copied it out
  ranks.allToAllInto(std::as_bytes(sent.nodes), sent.nodeCounts, received.nodeCounts,
                     sizeof(LetNode), {host, nodeBytes});
  ranks.allToAllInto(std::as_bytes(sent.bodies), sent.bodyCounts, received.bodyCounts,
                     sizeof(LetBody), {host + nodeBytes, bytes - nodeBytes});
  received.nodes = {reinterpret_cast<const LetNode*>(host), nodes};
  received.bodies = {reinterpret_cast<const LetBody*>(host + nodeBytes), bodies};
  return received;
}

// Places the received records from `firstByte` of received_ (`count` of them, `words` each) as
// tree_hash.comp's PLACE `place` says.
void LetSelection::placeRecords(Kernels& kernels, std::size_t firstByte, std::size_t count,
                                std::size_t words, int place,
                                const std::vector<std::pair<const char*, std::size_t>>& uniforms) {
  if (count == 0) return;
  const std::size_t bytes = count * words * 4;
  const GLuint buffer = ensureBuffer(slots_, bytes);
  glCopyNamedBufferSubData(received_.buffer(), buffer, GLintptr(firstByte), 0, GLsizeiptr(bytes));
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetChunksBinding, buffer);
  gl::UniformProgram& program = kernels.use(Kernel::hash, {{"PLACE", place}});
  program.setUint("uCount", count);
  program.setUint("uRecordWords", words);
  for (const auto& [name, value] : uniforms) program.setUint(name, value);
  kernels.dispatch(ceilDiv(count, kElementThreads));
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT |
                  GL_TEXTURE_FETCH_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
}

std::size_t LetSelection::slotsToPlace(const LetParts& received, const TopArea& top,
                                       const SlotMap& held) {
  return std::max(held.count + received.bodies.size(),
                  top.nodesPlaced() + received.nodes.size() + 1);
}

SlotMap LetSelection::place(Kernels& kernels, TreeBuffers& buffers, const LetParts& received,
                            const TopArea& top, const SlotMap& held, int rank) {
  const std::size_t count = held.count;
  const std::size_t below = std::accumulate(received.bodyCounts.begin(),
                                            received.bodyCounts.begin() + rank, std::size_t(0));
  const std::size_t nodeSlot = top.nodesPlaced(), nodes = received.nodes.size(),
                    bodies = received.bodies.size();
  if (slotsToPlace(received, top, held) > buffers.capacity())
    throw std::logic_error("a walker's arrays hold too few records for its local essential tree");
  const std::size_t entries = buffers.writeSlotHash(kernels, top.nodeHash(), nodes + bodies);
  buffers.moveRecords(kSortedBodies, held.bodiesBelow, below, count);
  const std::size_t mask = entries - 1;
  placeRecords(kernels, 0, nodes, sizeof(LetNode) / 4, 1,
               {{"uMask", mask}, {"uFirstSlot", nodeSlot}});
  placeRecords(kernels, nodes * sizeof(LetNode), bodies, sizeof(LetBody) / 4, 2,
               {{"uMask", mask}, {"uBelow", below}, {"uOwn", count}});
  received_.fence();  // its next round waits for these copies out of it
  return {true, held.first, count, below, entries};
}

}  // namespace nbody::tree
