#pragma once
// The nodes of a decomposed tree that straddle segments (docs/decomposed-tree-design.md, section
// 3): those whose range holds a pair of positions (P - 1, P) across a segment start P, which no
// walker can link alone. Every rank finds all of them alike from counts of keys added across ranks.
// For a start b, I_λ is the interval of positions whose extended key (key, then position: 96 bits)
// shares its first λ bits with b's: for λ <= 64 counted (the keys below b's key with its last
// 64 - λ bits cleared, and up to it with them set), beyond from b's position bits. The distinct
// ones of I_0 ⊇ I_1 ⊇ ... ⊇ I_D, D the common prefix of b - 1 and b, are the nodes over the pair
// (the first the root), and I_{λ+1}, the child holding b, gives each node's split.

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "engines/tree/tree_buffers.h"
#include "engines/tree/tree_build.h"
#include "engines/tree/tree_decompose.h"
#include "engines/tree/tree_kernels.h"
#include "parallel/ranks.h"

namespace nbody::tree {

// A node's links as one GPU's topology gives them.
struct NodeLinks {
  std::uint32_t index, otherEnd, split;
  friend bool operator==(const NodeLinks&, const NodeLinks&) = default;
};

// Every node that straddles a start of `starts` (K + 1 of them, rising from 0 to N), once, in index
// order: the same on every rank. This walker holds the sorted keys of its segment in kKeysIn (as
// after the walker sort); `ends` are gatherEnds'. Every rank calls it alike.
std::vector<NodeLinks> straddlingNodes(Kernels& kernels, CompositeCounter& counter,
                                       std::span<const std::size_t> starts,
                                       std::span<const WalkerEnds> ends, const Ranks& ranks);

// Writes the links of those of `nodes` whose index lies in `segment`, and the parents of their
// children held there, into this walker's arrays, in buildTopology's slots.
void writeStraddlingNodes(const TreeBuffers& buffers, std::span<const NodeLinks> nodes,
                          const TopologySegment& segment);

// A child of a straddling node that does not straddle (the frontier, design section 4): by global
// reference (a body leaf: LEAF_BIT | position), a node's records as the local moments pass leaves
// them (node test 2, quadrupole 2, box min, box max: 24 words) or a leaf's body (4 words).
struct FrontierItem {
  std::uint32_t reference;
  std::array<std::uint32_t, 24> words;
};

// What a walker holds past its segment for the top moments pass: the straddling nodes outside it
// at node slots after its own nodes, then the frontier items other ranks hold (nodes after them,
// bodies after its own bodies), each in the slot hash.
class TopArea {
 public:
  TopArea(std::span<const NodeLinks> nodes, const TopologySegment& segment, std::size_t bodyCount);
  // Before the local pass: the links of the straddling nodes outside the segment, and the parent
  // of every straddling node, at their slots.
  void placeNodes(const TreeBuffers& buffers) const;
  // After it: the references of the frontier items this walker holds (LetSelection::frontier
  // reads their records), and where one is held here (a node's or a body's slot).
  std::vector<std::uint32_t> heldFrontier() const;
  std::uint32_t heldSlot(std::uint32_t reference) const;
  // Every rank's items (gatherOnEveryRank) placed, those held here staying where they are; returns
  // where the top pass starts: each item's parent.
  std::vector<std::uint32_t> placeFrontier(const TreeBuffers& buffers,
                                           std::span<const FrontierItem> frontier);
  const std::vector<std::array<std::uint32_t, 2>>& hash() const { return hash_; }
  // The hash's entries for nodes only: a walk reads bodies from the local essential tree's array.
  std::vector<std::array<std::uint32_t, 2>> nodeHash() const;
  std::uint32_t slotOf(std::uint32_t node) const { return nodeSlots_.at(node); }
  // The slots (index - the segment's first) of the nodes held here whose records every rank
  // holds: straddling nodes, and nodes of the frontier. Ascending.
  std::vector<std::uint32_t> heldEverywhere() const;
  // The node slots taken: the segment's nodes, then the straddling and frontier nodes placed.
  std::size_t nodesPlaced() const { return nextNode_; }

 private:
  bool holds(std::uint32_t reference) const;

  std::vector<NodeLinks> nodes_;
  TopologySegment segment_;
  std::size_t bodyCount_, nextNode_, nextBody_;
  std::map<std::uint32_t, std::uint32_t> nodeSlots_;  // every straddling node's
  std::map<std::uint32_t, std::uint32_t> parents_;    // of each frontier item
  std::vector<std::array<std::uint32_t, 2>> hash_;
};

}  // namespace nbody::tree
