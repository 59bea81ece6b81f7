#include "engines/tree/tree_decompose.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engines/tree/tree_layout.h"
#include "engines/tree/tree_sort.h"
#include "gl/desktop_calls.h"

namespace nbody::tree {
namespace {

constexpr int kDigits = 8;  // of SegmentCut::kDigitBits: the composite's 96 bits

// `start` with its digit `digit` (0 the most significant) set to `value`.
Composite withDigit(Composite start, int digit, std::uint32_t value) {
  const int lowest = 96 - SegmentCut::kDigitBits * (digit + 1);
  for (int b = 0; b < SegmentCut::kDigitBits; ++b) {
    const int bit = lowest + b;
    std::uint32_t& word = start.words[std::size_t(2 - bit / 32)];
    const std::uint32_t mask = 1u << (bit % 32);
    word = (value >> b & 1u) != 0 ? word | mask : word & ~mask;
  }
  return start;
}

void checkStarts(std::span<const std::size_t> starts, const Ranks& ranks) {
  if (starts.size() != std::size_t(ranks.count()) + 1 || starts.front() != 0 ||
      !std::is_sorted(starts.begin(), starts.end()))
    throw std::invalid_argument("segment starts must rise from 0, one a rank and the end");
}

}  // namespace

std::array<std::uint32_t, 6> findGlobalBounds(Kernels& kernels, const TreeBuffers& buffers,
                                              std::size_t homeCount, const Ranks& ranks) {
  findBounds(kernels, buffers, homeCount);
  std::array<std::uint32_t, 6> bounds = readBounds(buffers);
  // Minima as the maxima of their complements: one integer maximum folds all six.
  std::array<std::int64_t, 6> folded{};
  for (std::size_t k = 0; k < 6; ++k) folded[k] = k < 3 ? ~bounds[k] : bounds[k];
  ranks.maximum(folded);
  for (std::size_t k = 0; k < 6; ++k)
    bounds[k] = k < 3 ? ~std::uint32_t(folded[k]) : std::uint32_t(folded[k]);
  writeBounds(buffers, bounds);
  return bounds;
}

struct SegmentCut::Start {
  std::size_t target;  // bodies of all homes before it
  Composite composite;
  bool found;
  std::size_t homeBefore;  // this home's bodies before it, once found
};

std::vector<std::size_t> SegmentCut::sendCounts(Kernels& kernels, const TreeBuffers& buffers,
                                                std::size_t homeCount, HeldIds home,
                                                std::span<const std::size_t> starts,
                                                const Ranks& ranks) {
  checkStarts(starts, ranks);
  buffers.bindSortPass(0);
  const std::size_t total = starts.back();
  std::vector<Start> sought;  // the inner starts: the first is 0, the last the end
  for (std::size_t r = 1; r + 1 < starts.size(); ++r) {
    const bool atEnd = starts[r] >= total;
    sought.push_back({starts[r], {}, starts[r] == 0 || atEnd, atEnd ? homeCount : 0});
  }
  rounds_ = 0;
  for (int digit = 0; digit < kDigits; ++digit) {
    if (std::all_of(sought.begin(), sought.end(), [](const Start& s) { return s.found; })) break;
    refine(kernels, homeCount, home, sought, digit, ranks);
    ++rounds_;
  }
  std::vector<std::size_t> before{0};
  for (const Start& start : sought) {
    if (!start.found) throw std::logic_error("a segment start was not found in 96 bits");
    before.push_back(start.homeBefore);
  }
  before.push_back(homeCount);
  std::vector<std::size_t> counts;
  for (std::size_t r = 0; r + 1 < before.size(); ++r) counts.push_back(before[r + 1] - before[r]);
  return counts;
}

// Each start still sought gets kBins candidates, its next digit taking every value; the counts of
// all homes before them pick the bin where its target lies. A start is found once the bodies
// before a candidate are exactly its target: at the latest at the last digit, as composites are
// unique.
void SegmentCut::refine(Kernels& kernels, std::size_t homeCount, HeldIds home,
                        std::vector<Start>& starts, int digit, const Ranks& ranks) {
  std::vector<Start*> open;
  std::vector<Composite> candidates;
  for (Start& start : starts) {
    if (start.found) continue;
    open.push_back(&start);
    for (std::uint32_t b = 0; b < kBins; ++b)
      candidates.push_back(withDigit(start.composite, digit, b));
  }
  const std::vector<std::uint32_t> before =
      counter_.countBefore(kernels, homeCount, home, candidates);
  std::vector<std::int64_t> all(before.begin(), before.end());
  ranks.sum(all);
  for (std::size_t s = 0; s < open.size(); ++s) {
    const auto first = all.begin() + std::ptrdiff_t(s * kBins), last = first + kBins;
    // The last bin whose candidate has at most the target before it (the first always has).
    const std::size_t b =
        std::size_t(std::upper_bound(first, last, std::int64_t(open[s]->target)) - first - 1);
    open[s]->composite = withDigit(open[s]->composite, digit, std::uint32_t(b));
    if (first[std::ptrdiff_t(b)] == std::int64_t(open[s]->target)) {
      open[s]->found = true;
      open[s]->homeBefore = before[s * kBins + b];
    }
  }
}

std::vector<std::uint32_t> CompositeCounter::countBefore(Kernels& kernels, std::size_t count,
                                                         HeldIds ids,
                                                         std::span<const Composite> candidates) {
  std::vector<std::array<std::uint32_t, 4>> records;
  for (const Composite& c : candidates) records.push_back({c.words[0], c.words[1], c.words[2], 0u});
  const std::size_t bytes = records.size() * sizeof records[0];
  if (records.empty()) return {};
  const GLuint buffer = ensureBuffer(buffer_, bytes);
  glNamedBufferSubData(buffer, 0, GLsizeiptr(bytes), records.data());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kSplitBinding, buffer);
  if (ids.buffer != 0) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetMarksBinding, ids.buffer);
  gl::UniformProgram& program = kernels.use(Kernel::split, {{"HELD_IDS", ids.buffer != 0}});
  program.setUint("uCount", count);
  if (ids.buffer == 0) program.setUint("uFirstId", ids.first);
  program.setUint("uCandidates", records.size());
  kernels.dispatch(ceilDiv(records.size(), kElementThreads));
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glGetNamedBufferSubData(buffer, 0, GLsizeiptr(bytes), records.data());
  std::vector<std::uint32_t> before;
  for (const auto& record : records) before.push_back(record[3]);
  return before;
}

SegmentBodies sendSegments(const TreeBuffers& buffers, std::size_t homeCount,
                           std::span<const std::size_t> sendCounts, const Ranks& ranks) {
  const std::vector<std::uint32_t> sorted = buffers.readWords(kSortedBodies, 4 * homeCount);
  SegmentBodies segment;
  segment.positionMass = allToAllRecords<glm::vec4>(ranks, std::as_bytes(std::span(sorted)),
                                                    sendCounts, segment.received);
  return segment;
}

std::vector<std::uint32_t> sendIds(const TreeBuffers& buffers, BodyRange home,
                                   std::span<const std::size_t> sendCounts, const Ranks& ranks) {
  std::vector<std::uint32_t> ids = readSortedBodies(buffers, home.size());
  for (std::uint32_t& id : ids) id += std::uint32_t(home.first);
  std::vector<std::size_t> received;
  return allToAllRecords<std::uint32_t>(ranks, std::as_bytes(std::span(ids)), sendCounts, received);
}

std::vector<WalkerEnds> gatherEnds(const TreeBuffers& buffers, std::size_t count,
                                   const Ranks& ranks) {
  std::vector<WalkerEnds> ends(std::size_t(ranks.count()));
  const auto keyAt = [&](std::size_t index) {
    const std::vector<std::uint32_t> words = buffers.readRecord(kKeysIn, index);
    return std::uint64_t(words[0]) << 32 | words[1];
  };
  if (count > 0) ends[std::size_t(ranks.rank())] = {1, keyAt(0), keyAt(count - 1)};
  const std::vector<std::size_t> units(ends.size(), 1);
  ranks.allGather(std::as_writable_bytes(std::span(ends)), units, sizeof(WalkerEnds));
  return ends;
}

TopologySegment segmentOf(std::span<const WalkerEnds> ends, std::size_t first, std::size_t count,
                          int rank) {
  TopologySegment segment{first, count, {}};
  for (std::size_t r = std::size_t(rank); r-- > 0;)
    if (ends[r].holds) {
      segment.haloKeys[0] = std::uint32_t(ends[r].lastKey >> 32);
      segment.haloKeys[1] = std::uint32_t(ends[r].lastKey);
      break;
    }
  for (std::size_t r = std::size_t(rank) + 1; r < ends.size(); ++r)
    if (ends[r].holds) {
      segment.haloKeys[2] = std::uint32_t(ends[r].firstKey >> 32);
      segment.haloKeys[3] = std::uint32_t(ends[r].firstKey);
      break;
    }
  return segment;
}

}  // namespace nbody::tree
