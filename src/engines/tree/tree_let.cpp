#include "engines/tree/tree_let.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "engines/tree/tree_layout.h"
#include "gl/desktop_calls.h"

namespace nbody::tree {
namespace {

constexpr int kLetStack = 4096;  // tree_let.comp's LET_STACK: 16 KiB of shared memory
constexpr int kMostRanks = 32;   // a bit a rank in a word of marks (tree_let.comp's MAX_RANKS)
constexpr std::size_t kHeaderWords = 2;  // tree_let.comp's letOverflow, letUnused

// A new buffer holding `bytes` (at least 4), filled with `data` where given, else zeros.
gl::Buffer bufferOf(const void* data, std::size_t bytes) {
  gl::Buffer buffer = gl::Buffer::create();
  const std::vector<std::byte> zeros(data ? 0 : std::max<std::size_t>(bytes, 4));
  glNamedBufferStorage(buffer.id(), GLsizeiptr(std::max<std::size_t>(bytes, 4)),
                       data ? data : zeros.data(), 0);
  return buffer;
}

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

template <class Record>
std::span<const std::byte> bytesOf(const std::vector<Record>& records) {
  return std::as_bytes(std::span(records));
}

template <class Record>
std::vector<Record> recordsFrom(const std::vector<std::byte>& bytes) {
  std::vector<Record> records(bytes.size() / sizeof(Record));
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<std::byte*>(records.data()));
  return records;
}

// A float holding these bits (std::bit_cast, which Emscripten's libc++ lacks).
float floatWithBits(std::uint32_t bits) {
  float value = 0.0f;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

}  // namespace

std::size_t letChunkBodies(const TreeSettings& settings) {
  const std::size_t group =
      std::size_t(std::max(settings.groupSize, settings.estimateGroupSize));  // powers of two
  return std::max<std::size_t>(1024, group);
}

std::vector<LetChunk> chunksOf(std::span<const glm::vec4> bodies, std::size_t chunkBodies,
                               int rank) {
  std::vector<LetChunk> chunks;
  for (std::size_t first = 0; first < bodies.size(); first += chunkBodies) {
    const float inf = std::numeric_limits<float>::infinity();
    LetChunk chunk{{inf, inf, inf, floatWithBits(std::uint32_t(rank))}, {-inf, -inf, -inf, 0.0f}};
    for (std::size_t k = first; k < std::min(first + chunkBodies, bodies.size()); ++k)
      for (int axis = 0; axis < 3; ++axis) {
        chunk.lo[std::size_t(axis)] = std::min(chunk.lo[std::size_t(axis)], bodies[k][axis]);
        chunk.hi[std::size_t(axis)] = std::max(chunk.hi[std::size_t(axis)], bodies[k][axis]);
      }
    chunks.push_back(chunk);
  }
  return chunks;
}

void setLeastAccelerations(std::span<LetChunk> chunks, std::span<const float> estimates,
                           std::size_t chunkBodies) {
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const auto first = estimates.begin() + std::ptrdiff_t(c * chunkBodies);
    const auto last =
        estimates.begin() + std::ptrdiff_t(std::min((c + 1) * chunkBodies, estimates.size()));
    chunks[c].hi[3] = *std::min_element(first, last);
  }
}

LetMarks LetSelection::select(Kernels& kernels, const SlotMap& slots,
                              std::span<const LetChunk> chunks, std::span<const std::size_t> starts,
                              int rank, const TreeSettings& settings, double openingScale2) {
  if (starts.size() < 2 || starts.size() > kMostRanks + 1)
    throw std::invalid_argument("a local essential tree is for 1 to 32 ranks");
  chunks_ = bufferOf(chunks.data(), chunks.size_bytes());
  marks_ = bufferOf(nullptr, (kHeaderWords + 2 * slots.count) * 4);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetChunksBinding, chunks_.id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetMarksBinding, marks_.id());
  gl::Defines defines = slotDefines(slots);
  defines.set("LET_STACK", kLetStack)
      .set("OPENING", opensRelative(settings) ? 1 : 0)
      .set("EXPANSION_ORDER", settings.expansionOrder);
  gl::UniformProgram& program = kernels.use(Kernel::let, defines);
  setSlotUniforms(program, slots, starts.back());
  setLetUniforms(program, starts, rank, chunks.size(), settings, openingScale2);
  kernels.dispatch(chunks.size());
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  std::vector<std::uint32_t> words(kHeaderWords + 2 * slots.count);
  glGetNamedBufferSubData(marks_.id(), 0, GLsizeiptr(words.size() * 4), words.data());
  if (words[0] != 0)
    throw std::runtime_error("a local essential tree's walk outgrew its stack of " +
                             std::to_string(kLetStack) + " nodes");
  const auto nodes = words.begin() + kHeaderWords, bodies = nodes + std::ptrdiff_t(slots.count);
  return {slots.first, {nodes, bodies}, {bodies, words.end()}};
}

std::size_t LetParts::bytes() const {
  return nodes.size() * sizeof(LetNode) + bodies.size() * sizeof(LetBody);
}

LetParts packLet(const TreeBuffers& buffers, const LetMarks& marks, const TopArea& top,
                 const SlotMap& held, int ranks) {
  const auto marked = std::find_if(marks.nodes.rbegin(), marks.nodes.rend(),
                                   [](std::uint32_t word) { return word != 0; });
  const std::size_t nodeSlots = std::size_t(marks.nodes.rend() - marked);
  const std::vector<std::uint32_t> test = buffers.readRecords(kNodeTest, 0, 2 * nodeSlots),
                                   quad = buffers.readRecords(kNodeQuad, 0, 2 * nodeSlots),
                                   bodies = buffers.readRecords(kSortedBodies, held.bodiesBelow,
                                                                held.count);
  LetParts parts;
  for (int r = 0; r < ranks; ++r) {
    const std::uint32_t bit = 1u << r;
    const std::size_t nodesBefore = parts.nodes.size(), bodiesBefore = parts.bodies.size();
    for (std::size_t slot = 0; slot < nodeSlots; ++slot) {
      const auto index = std::uint32_t(marks.first + slot);
      if ((marks.nodes[slot] & bit) == 0 || top.everywhere(index)) continue;
      LetNode node{index, {}};
      std::copy_n(test.begin() + std::ptrdiff_t(8 * slot), 8, node.words.begin());
      std::copy_n(quad.begin() + std::ptrdiff_t(8 * slot), 8, node.words.begin() + 8);
      parts.nodes.push_back(node);
    }
    for (std::size_t slot = 0; slot < marks.bodies.size(); ++slot) {
      if ((marks.bodies[slot] & bit) == 0) continue;
      LetBody body{std::uint32_t(marks.first + slot), {}};
      std::copy_n(bodies.begin() + std::ptrdiff_t(4 * slot), 4, body.words.begin());
      parts.bodies.push_back(body);
    }
    parts.nodeCounts.push_back(parts.nodes.size() - nodesBefore);
    parts.bodyCounts.push_back(parts.bodies.size() - bodiesBefore);
  }
  return parts;
}

LetParts exchangeLet(const LetParts& sent, const Ranks& ranks) {
  LetParts received;
  received.nodes = recordsFrom<LetNode>(
      ranks.allToAll(bytesOf(sent.nodes), sent.nodeCounts, sizeof(LetNode), received.nodeCounts));
  received.bodies = recordsFrom<LetBody>(
      ranks.allToAll(bytesOf(sent.bodies), sent.bodyCounts, sizeof(LetBody), received.bodyCounts));
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
    throw std::runtime_error("a walker's arrays hold too few records for its local essential tree");
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
  const std::vector<std::uint32_t> own =
      buffers.readRecords(kSortedBodies, held.bodiesBelow, count);
  std::vector<std::uint32_t> bodies;
  for (std::size_t k = 0; k < received.bodies.size(); ++k) {
    if (k == below) bodies.insert(bodies.end(), own.begin(), own.end());
    const LetBody& body = received.bodies[k];
    bodies.insert(bodies.end(), body.words.begin(), body.words.end());
    hash.push_back({kLeafBit | body.position, std::uint32_t(k < below ? k : k + count)});
  }
  if (below == received.bodies.size()) bodies.insert(bodies.end(), own.begin(), own.end());
  buffers.writeRecords(kSortedBodies, 0, bodies);
  return {true, held.first, count, below, buffers.writeSlotHash(hash)};
}

}  // namespace nbody::tree
