#pragma once
// The decomposed tree's sort (docs/decomposed-tree-design.md, sections 1 and 2). Each rank is the
// home of a fixed range of body IDs and the walker of a segment [P_r, P_{r+1}) of the single
// GPU's sorted order. The homes fold their boxes into the global one (integers: exact), sort their
// own bodies by (key, ID), find where the segments begin by counts of bodies added across ranks
// (integers again), and send each walker its segment's bodies. A walker sorts what it received,
// under the global box, with the same kernels: its order is the single GPU's [P_r, P_{r+1}), byte
// for byte, because the parts arrive in home order and homes hold ascending IDs.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <glm/vec4.hpp>

#include "engines/rank_exchange.h"
#include "engines/tree/tree_buffers.h"
#include "engines/tree/tree_build.h"
#include "engines/tree/tree_kernels.h"
#include "gl/objects.h"
#include "parallel/ranks.h"

namespace nbody::tree {

// A body's place in the single GPU's order, which breaks ties of keys by ID: key bits 32..62, key
// bits 0..31, ID; a 96-bit number, the first word the most significant.
struct Composite {
  std::array<std::uint32_t, 3> words{};
};

// The box of every rank's bodies (this rank's `homeCount` at kPositionUnit) into kBounds: the
// words one GPU finds for all of them, each rank's folded by integer maximum. Returns them.
std::array<std::uint32_t, 6> findGlobalBounds(Kernels& kernels, const TreeBuffers& buffers,
                                              std::size_t homeCount, const Ranks& ranks);

// The IDs of bodies held here, by their index: `first` + the index, or where `buffer` is not 0,
// its word at the index (ascending, so that the index order is the ID order).
struct HeldIds {
  std::size_t first = 0;
  GLuint buffer = 0;
};

// How many of the sorted (key, ID) composites held here come before each candidate, on the GPU
// (tree_split.comp: a binary search an invocation); a composite's ID is that of its value in
// `ids`. The keys and values are kKeysIn and kValuesIn, as sortByKeys leaves them. A candidate
// with ID 0 counts the keys below its key.
class CompositeCounter {
 public:
  std::vector<std::uint32_t> countBefore(Kernels& kernels, std::size_t count, HeldIds ids,
                                         std::span<const Composite> candidates);

 private:
  GrowingBuffer buffer_;  // the candidates
};

// Where the segments cut each home's sorted bodies.
class SegmentCut {
 public:
  // After sortByKeys sorted the home's bodies under the global box (keys and local indices in
  // kKeysIn and kValuesIn; a body's ID as `home` says): how many of them go to each
  // rank r, those at global sorted positions [starts[r], starts[r + 1]) (K + 1 starts, rising from
  // 0 to N). Every rank calls it alike. Throws std::invalid_argument for bad starts.
  std::vector<std::size_t> sendCounts(Kernels& kernels, const TreeBuffers& buffers,
                                      std::size_t homeCount, HeldIds home,
                                      std::span<const std::size_t> starts, const Ranks& ranks);
  // Rounds the last cut took, each a dispatch, a readback and an MPI_Allreduce.
  int rounds() const { return rounds_; }

  // A round's candidates: each segment start still sought takes this many, the next 12 bits of its
  // composite taking every value.
  static constexpr int kDigitBits = 12;
  static constexpr std::size_t kBins = std::size_t(1) << kDigitBits;

 private:
  struct Start;  // a segment start sought: its target, the composite so far, what is known
  void refine(Kernels& kernels, std::size_t homeCount, HeldIds home, std::vector<Start>& starts,
              int digit, const Ranks& ranks);

  CompositeCounter counter_;
  int rounds_ = 0;
};

// What a walker received: its segment's positions and masses, home 0's part first, each part in
// the home's sorted order; and each home's count.
struct SegmentBodies {
  std::vector<glm::vec4> positionMass;
  std::vector<std::size_t> received;
};
// Sends each rank its part of this home's bodies in sorted order (kSortedBodies, as buildTopology
// gathers them), cut by SegmentCut's counts. Every rank calls it alike.
SegmentBodies sendSegments(const TreeBuffers& buffers, std::size_t homeCount,
                           std::span<const std::size_t> sendCounts, const Ranks& ranks);

// The IDs of the home's bodies [first, last) in its sorted order (kValuesIn after sortByKeys),
// sent as sendSegments sends the bodies: each walker's IDs in the order its bodies arrived. Every
// rank calls it alike.
std::vector<std::uint32_t> sendIds(const TreeBuffers& buffers, BodyRange home,
                                   std::span<const std::size_t> sendCounts, const Ranks& ranks);

// Each walker's first and last key (hi << 32 | lo), where it holds any, on every rank: after the
// walker sort (its `count` keys in kKeysIn). Every rank calls it alike.
struct WalkerEnds {
  std::uint64_t holds, firstKey, lastKey;
};
std::vector<WalkerEnds> gatherEnds(const TreeBuffers& buffers, std::size_t count,
                                   const Ranks& ranks);
// Rank `rank`'s part of the topology: its sorted positions [first, first + count), and the keys
// next to them: the last of the nearest rank before it that holds any, the first of the nearest
// after.
TopologySegment segmentOf(std::span<const WalkerEnds> ends, std::size_t first, std::size_t count,
                          int rank);

}  // namespace nbody::tree
