#include "engines/tree/tree_let.h"

#include <algorithm>
#include <bit>
#include <numeric>
#include <stdexcept>
#include <string>

#include "engines/tree/tree_layout.h"
#include "gl/desktop_calls.h"

namespace nbody::tree {
namespace {

constexpr int kLetStack = 4096;          // tree_let.comp's LET_STACK: 16 KiB of shared memory
constexpr std::size_t kHeaderWords = 2;  // tree_let.comp's letOverflow, letUnused
constexpr std::size_t kRecordWords[] = {4, 16, 24};  // tree_pack.comp's, by LetSelection::Records

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
  ensureBuffer(output_, count * sizeof(LetChunk));
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetChunksBinding, output_.buffer.id());
  gl::UniformProgram& program = kernels.use(Kernel::chunks, {{"ESTIMATES", withEstimates ? 1 : 0}});
  program.setUint("uCount", held.count);
  program.setUint("uChunkBodies", chunkBodies);
  program.setUint("uBodiesBelow", held.bodiesBelow);
  program.setUint("uRank", std::size_t(rank));
  kernels.dispatch(count);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glGetNamedBufferSubData(output_.buffer.id(), 0, GLsizeiptr(count * sizeof(LetChunk)),
                          chunks.data());
  return chunks;
}

LetMarks LetSelection::select(Kernels& kernels, const SlotMap& slots,
                              std::span<const LetChunk> chunks, std::span<const std::size_t> starts,
                              int rank, const TreeSettings& settings, double openingScale2) {
  if (starts.size() < 2 || starts.size() > std::size_t(kLetMostRanks) + 1)
    throw std::invalid_argument("a local essential tree is for 1 to 32 ranks");
  const std::size_t words = kHeaderWords + 2 * slots.count;
  ensureBuffer(input_, chunks.size_bytes());
  ensureBuffer(output_, words * 4);
  if (!chunks.empty())
    glNamedBufferSubData(input_.buffer.id(), 0, GLsizeiptr(chunks.size_bytes()), chunks.data());
  const std::uint32_t zero = 0;
  glClearNamedBufferSubData(output_.buffer.id(), GL_R32UI, 0, GLsizeiptr(words * 4), GL_RED_INTEGER,
                            GL_UNSIGNED_INT, &zero);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetChunksBinding, input_.buffer.id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetMarksBinding, output_.buffer.id());
  gl::Defines defines = slotDefines(slots);
  defines.set("LET_STACK", kLetStack)
      .set("OPENING", opensRelative(settings) ? 1 : 0)
      .set("EXPANSION_ORDER", settings.expansionOrder);
  gl::UniformProgram& program = kernels.use(Kernel::let, defines);
  setSlotUniforms(program, slots, starts.back());
  setLetUniforms(program, starts, rank, chunks.size(), settings, openingScale2);
  kernels.dispatch(chunks.size());
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  std::vector<std::uint32_t> marks(words);
  glGetNamedBufferSubData(output_.buffer.id(), 0, GLsizeiptr(words * 4), marks.data());
  const auto nodes = marks.begin() + kHeaderWords, bodies = nodes + std::ptrdiff_t(slots.count);
  return {slots.first, {nodes, bodies}, {bodies, marks.end()}, marks[0] != 0};
}

std::size_t LetParts::bytes() const {
  return nodes.size() * sizeof(LetNode) + bodies.size() * sizeof(LetBody);
}

std::vector<std::uint32_t> LetSelection::packed(Kernels& kernels,
                                                std::span<const std::uint32_t> slots,
                                                Records records) {
  const std::size_t words = slots.size() * kRecordWords[std::size_t(records)];
  std::vector<std::uint32_t> packed(words);
  if (slots.empty()) return packed;
  ensureBuffer(input_, slots.size_bytes());
  ensureBuffer(output_, words * 4);
  glNamedBufferSubData(input_.buffer.id(), 0, GLsizeiptr(slots.size_bytes()), slots.data());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetChunksBinding, input_.buffer.id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetMarksBinding, output_.buffer.id());
  gl::UniformProgram& program = kernels.use(Kernel::pack, {{"NODES", int(records)}});
  program.setUint("uCount", slots.size());
  kernels.dispatch(ceilDiv(slots.size(), kElementThreads));
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glGetNamedBufferSubData(output_.buffer.id(), 0, GLsizeiptr(words * 4), packed.data());
  return packed;
}

LetParts LetSelection::pack(Kernels& kernels, const LetMarks& marks, const TopArea& top,
                            const SlotMap& held, int ranks) {
  // Each receiver's slots in one pass over the marks, ascending; then receiver after receiver.
  std::vector<std::vector<std::uint32_t>> nodesFor(static_cast<std::size_t>(ranks)),
      bodiesFor(nodesFor.size());
  const auto sortOut = [](std::uint32_t word, std::uint32_t slot, auto& lists) {
    for (; word != 0; word &= word - 1) lists[std::size_t(std::countr_zero(word))].push_back(slot);
  };
  for (std::size_t slot = 0; slot < marks.nodes.size(); ++slot)
    if (marks.nodes[slot] != 0 && !top.everywhere(std::uint32_t(marks.first + slot)))
      sortOut(marks.nodes[slot], std::uint32_t(slot), nodesFor);
  for (std::size_t slot = 0; slot < marks.bodies.size(); ++slot)
    sortOut(marks.bodies[slot], std::uint32_t(slot), bodiesFor);
  LetParts parts;
  std::vector<std::uint32_t> nodeSlots, bodySlots;
  for (std::size_t r = 0; r < std::size_t(ranks); ++r) {
    nodeSlots.insert(nodeSlots.end(), nodesFor[r].begin(), nodesFor[r].end());
    bodySlots.insert(bodySlots.end(), bodiesFor[r].begin(), bodiesFor[r].end());
    parts.nodeCounts.push_back(nodesFor[r].size());
    parts.bodyCounts.push_back(bodiesFor[r].size());
  }
  const std::vector<std::uint32_t> nodeWords = packed(kernels, nodeSlots, Records::nodes);
  for (std::size_t k = 0; k < nodeSlots.size(); ++k) {
    LetNode node{std::uint32_t(marks.first + nodeSlots[k]), {}};
    std::copy_n(nodeWords.begin() + std::ptrdiff_t(16 * k), 16, node.words.begin());
    parts.nodes.push_back(node);
  }
  std::vector<std::uint32_t> heldSlots(bodySlots);
  for (std::uint32_t& slot : heldSlots) slot += std::uint32_t(held.bodiesBelow);
  const std::vector<std::uint32_t> bodyWords = packed(kernels, heldSlots, Records::bodies);
  for (std::size_t k = 0; k < bodySlots.size(); ++k) {
    LetBody body{std::uint32_t(marks.first + bodySlots[k]), {}};
    std::copy_n(bodyWords.begin() + std::ptrdiff_t(4 * k), 4, body.words.begin());
    parts.bodies.push_back(body);
  }
  return parts;
}

std::vector<FrontierItem> LetSelection::frontier(Kernels& kernels, const TopArea& top) {
  std::vector<std::uint32_t> nodes, bodies;
  const std::vector<std::uint32_t> held = top.heldFrontier();
  for (std::uint32_t reference : held)
    ((reference & kLeafBit) != 0 ? bodies : nodes).push_back(top.heldSlot(reference));
  const std::vector<std::uint32_t> nodeWords = packed(kernels, nodes, Records::frontierNodes),
                                   bodyWords = packed(kernels, bodies, Records::bodies);
  std::vector<FrontierItem> items;
  std::size_t node = 0, body = 0;
  for (std::uint32_t reference : held) {
    FrontierItem item{reference, {}};
    if ((reference & kLeafBit) != 0)
      std::copy_n(bodyWords.begin() + std::ptrdiff_t(4 * body++), 4, item.words.begin());
    else
      std::copy_n(nodeWords.begin() + std::ptrdiff_t(24 * node++), 24, item.words.begin());
    items.push_back(item);
  }
  return items;
}

LetParts exchangeLet(const LetParts& sent, const Ranks& ranks) {
  LetParts received;
  received.nodes = allToAllRecords<LetNode>(ranks, std::as_bytes(std::span(sent.nodes)),
                                            sent.nodeCounts, received.nodeCounts);
  received.bodies = allToAllRecords<LetBody>(ranks, std::as_bytes(std::span(sent.bodies)),
                                             sent.bodyCounts, received.bodyCounts);
  return received;
}

SlotMap placeLet(TreeBuffers& buffers, const LetParts& received, const TopArea& top,
                 const SlotMap& held, int rank) {
  const std::size_t count = held.count;
  const std::size_t below = std::accumulate(received.bodyCounts.begin(),
                                            received.bodyCounts.begin() + rank, std::size_t(0));
  const std::size_t nodeSlot = top.nodesPlaced(), nodes = received.nodes.size();
  if (count + received.bodies.size() > buffers.capacity() ||
      nodeSlot + nodes + 1 > buffers.capacity())
    throw std::logic_error("a walker's arrays hold too few records for its local essential tree");
  std::vector<std::array<std::uint32_t, 2>> hash = top.nodeHash();
  std::vector<std::uint32_t> test, quad;
  for (std::size_t k = 0; k < nodes; ++k) {
    const LetNode& node = received.nodes[k];
    test.insert(test.end(), node.words.begin(), node.words.begin() + 8);
    quad.insert(quad.end(), node.words.begin() + 8, node.words.end());
    hash.push_back({node.index, std::uint32_t(nodeSlot + k)});
  }
  buffers.writeRecords(kNodeTest, 2 * nodeSlot, test);
  buffers.writeRecords(kNodeQuad, 2 * nodeSlot, quad);
  buffers.moveRecords(kSortedBodies, held.bodiesBelow, below, count);
  std::vector<std::uint32_t> lower, upper;
  for (std::size_t k = 0; k < received.bodies.size(); ++k) {
    const LetBody& body = received.bodies[k];
    std::vector<std::uint32_t>& part = k < below ? lower : upper;
    part.insert(part.end(), body.words.begin(), body.words.end());
    hash.push_back({kLeafBit | body.position, std::uint32_t(k < below ? k : k + count)});
  }
  buffers.writeRecords(kSortedBodies, 0, lower);
  buffers.writeRecords(kSortedBodies, below + count, upper);
  return {true, held.first, count, below, buffers.writeSlotHash(hash)};
}

}  // namespace nbody::tree
