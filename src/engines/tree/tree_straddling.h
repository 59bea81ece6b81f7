#pragma once
// The nodes of a decomposed tree that straddle segments (docs/decomposed-tree-design.md, section
// 3): those whose range holds a pair of positions (P - 1, P) across a segment start P, which no
// walker can link alone. Every rank finds all of them alike from counts of keys added across ranks.
// For a start b, I_λ is the interval of positions whose extended key (key, then position: 96 bits)
// shares its first λ bits with b's: for λ <= 64 counted (the keys below b's key with its last
// 64 - λ bits cleared, and up to it with them set), beyond from b's position bits. The distinct
// ones of I_0 ⊇ I_1 ⊇ ... ⊇ I_D, D the common prefix of b - 1 and b, are the nodes over the pair
// (the first the root), and I_{λ+1}, the child holding b, gives each node's split.

#include <compare>
#include <cstdint>
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
  friend auto operator<=>(const NodeLinks&, const NodeLinks&) = default;
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

}  // namespace nbody::tree
