#include "engines/tree/tree_straddling.h"

#include <algorithm>
#include <bit>
#include <iterator>
#include <map>
#include <optional>
#include <stdexcept>

namespace nbody::tree {
namespace {

// A node's children as references: a child of one body is a body leaf.
std::array<std::uint32_t, 2> childrenOf(const NodeLinks& node) {
  const std::uint32_t lo = std::min(node.index, node.otherEnd),
                      hi = std::max(node.index, node.otherEnd);
  return {node.split == lo ? kLeafBit | node.split : node.split,
          node.split + 1 == hi ? kLeafBit | (node.split + 1) : node.split + 1};
}

struct Interval {
  std::size_t lo, hi;
  friend bool operator==(const Interval&, const Interval&) = default;
};

// A segment start, the keys on both sides of it, and their common prefix.
struct Boundary {
  std::size_t position;
  std::uint64_t keyBefore, key;
  int prefix;
};

// The common prefix of the extended keys at positions a and b, as tree_topology.comp's.
int commonPrefixOf(std::uint64_t keyA, std::uint32_t a, std::uint64_t keyB, std::uint32_t b) {
  if (keyA != keyB) return std::countl_zero(keyA ^ keyB);
  return 64 + std::countl_zero(a ^ b);
}

std::size_t rankHolding(std::span<const std::size_t> starts, std::size_t position) {
  return std::size_t(std::upper_bound(starts.begin(), starts.end(), position) - starts.begin()) - 1;
}

std::vector<Boundary> boundariesOf(std::span<const std::size_t> starts,
                                   std::span<const WalkerEnds> ends) {
  const std::size_t total = starts.back();
  std::vector<Boundary> boundaries;
  for (std::size_t r = 1; r + 1 < starts.size(); ++r) {
    const std::size_t b = starts[r];
    if (b == 0 || b >= total || (!boundaries.empty() && boundaries.back().position == b)) continue;
    const std::uint64_t before = ends[rankHolding(starts, b - 1)].lastKey,
                        key = ends[rankHolding(starts, b)].firstKey;
    boundaries.push_back(
        {b, before, key, commonPrefixOf(before, std::uint32_t(b - 1), key, std::uint32_t(b))});
  }
  return boundaries;
}

// The prefix lengths counted for a boundary: 1 to D + 1, at most 64 (the rest are positions').
int countedLengths(const Boundary& boundary) { return std::min(boundary.prefix + 1, 64); }

std::uint64_t lastBits(int length) { return length >= 64 ? 0 : ~std::uint64_t(0) >> length; }

Composite compositeOf(std::uint64_t key) {
  return {{std::uint32_t(key >> 32), std::uint32_t(key), 0u}};  // ID 0: counts the keys below
}

// Two counts a prefix length: the keys below b's key with its last bits cleared, and below it
// with them set, plus one.
std::vector<Composite> queriesOf(std::span<const Boundary> boundaries) {
  std::vector<Composite> queries;
  for (const Boundary& boundary : boundaries)
    for (int length = 1; length <= countedLengths(boundary); ++length) {
      queries.push_back(compositeOf(boundary.key & ~lastBits(length)));
      queries.push_back(compositeOf((boundary.key | lastBits(length)) + 1));
    }
  return queries;
}

// I_0 .. I_{D+1} of a boundary, from its counts.
std::vector<Interval> intervalsOf(const Boundary& boundary, const std::int64_t* counts,
                                  std::size_t total) {
  std::vector<Interval> intervals{{0, total - 1}};
  for (int length = 1; length <= countedLengths(boundary); ++length, counts += 2)
    intervals.push_back({std::size_t(counts[0]), std::size_t(counts[1]) - 1});
  for (int length = 65; length <= boundary.prefix + 1; ++length) {
    const std::size_t mask = (std::size_t(1) << (96 - length)) - 1;
    intervals.push_back({std::max(intervals[64].lo, boundary.position & ~mask),
                         std::min(intervals[64].hi, boundary.position | mask)});
  }
  return intervals;
}

// The nodes over a boundary's pair, from the root down: each distinct interval, its split from
// the next, its index from whether it is its parent's left or right child.
void addPathNodes(std::span<const Interval> intervals, std::map<std::uint32_t, NodeLinks>& nodes) {
  std::optional<Interval> parent;
  for (std::size_t length = 0; length + 1 < intervals.size(); ++length) {
    const Interval node = intervals[length], child = intervals[length + 1];
    if (node == child) continue;
    if (!parent && node != intervals[0]) throw std::logic_error("the root is not every position");
    const std::size_t split = child.lo > node.lo ? child.lo - 1 : child.hi;
    const bool left = parent && node.lo == parent->lo;
    const std::size_t index = !parent ? 0 : left ? node.hi : node.lo;
    const std::size_t otherEnd = index == node.lo ? node.hi : node.lo;
    nodes.emplace(std::uint32_t(index),
                  NodeLinks{std::uint32_t(index), std::uint32_t(otherEnd), std::uint32_t(split)});
    parent = node;
  }
}

}  // namespace

std::vector<NodeLinks> straddlingNodes(Kernels& kernels, CompositeCounter& counter,
                                       std::span<const std::size_t> starts,
                                       std::span<const WalkerEnds> ends, const Ranks& ranks) {
  const std::size_t total = starts.back();
  if (total < 2) return {};
  const std::vector<Boundary> boundaries = boundariesOf(starts, ends);
  const std::vector<Composite> queries = queriesOf(boundaries);
  const std::size_t r = std::size_t(ranks.rank());
  const std::vector<std::uint32_t> here =
      counter.countBefore(kernels, starts[r + 1] - starts[r], {}, queries);
  std::vector<std::int64_t> counts(here.begin(), here.end());
  ranks.sum(counts);
  std::map<std::uint32_t, NodeLinks> nodes;
  const std::int64_t* next = counts.data();
  for (const Boundary& boundary : boundaries) {
    addPathNodes(intervalsOf(boundary, next, total), nodes);
    next += 2 * countedLengths(boundary);
  }
  std::vector<NodeLinks> sorted;
  for (const auto& entry : nodes) sorted.push_back(entry.second);
  return sorted;
}

void writeStraddlingNodes(const TreeBuffers& buffers, std::span<const NodeLinks> nodes,
                          const TopologySegment& segment) {
  const std::size_t first = segment.first, end = first + segment.count;
  const auto here = [&](std::size_t position) { return position >= first && position < end; };
  for (const NodeLinks& node : nodes) {
    if (here(node.index)) {
      const std::uint32_t links[4] = {0u, node.otherEnd, node.split, 0u};
      buffers.writeRecord(kNodeTest, 2 * (node.index - first) + 1, links);
    }
    for (const std::uint32_t child : childrenOf(node)) {
      const std::uint32_t position = child & ~kLeafBit;
      if (!here(position)) continue;
      const std::uint32_t parent[1] = {node.index};
      const bool leaf = (child & kLeafBit) != 0;
      buffers.writeRecord(kParents, leaf ? position - first : segment.count + position - first,
                          parent);
    }
  }
}

TopArea::TopArea(std::span<const NodeLinks> nodes, const TopologySegment& segment,
                 std::size_t bodyCount)
    : nodes_(nodes.begin(), nodes.end()), segment_(segment), bodyCount_(bodyCount) {
  const std::size_t last = bodyCount - 1;  // internal nodes
  nextNode_ = std::min(segment.first + segment.count, last) - std::min(segment.first, last);
  nextBody_ = segment.count;
  for (const NodeLinks& node : nodes_) {
    const bool here = holds(node.index);
    const std::uint32_t slot =
        here ? std::uint32_t(node.index - segment.first) : std::uint32_t(nextNode_++);
    nodeSlots_[node.index] = slot;
    if (!here) hash_.push_back({node.index, slot});
  }
  for (const NodeLinks& node : nodes_)
    for (std::uint32_t child : childrenOf(node))
      if ((child & kLeafBit) != 0 || !nodeSlots_.contains(child)) parents_[child] = node.index;
}

bool TopArea::holds(std::uint32_t reference) const {
  const std::size_t position = reference & ~kLeafBit;
  return position >= segment_.first && position < segment_.first + segment_.count;
}

void TopArea::placeNodes(const TreeBuffers& buffers) const {
  for (const NodeLinks& node : nodes_) {
    const std::uint32_t slot = nodeSlots_.at(node.index);
    if (!holds(node.index)) {
      const std::uint32_t links[4] = {0u, node.otherEnd, node.split, 0u};
      buffers.writeRecord(kNodeTest, 2 * std::size_t(slot) + 1, links);
    }
    for (std::uint32_t child : childrenOf(node))
      if (nodeSlots_.contains(child)) {
        const std::uint32_t parent[1] = {node.index};
        buffers.writeRecord(kParents, segment_.count + nodeSlots_.at(child), parent);
      }
  }
}

std::vector<std::uint32_t> TopArea::heldFrontier() const {
  std::vector<std::uint32_t> held;
  for (const auto& [reference, parent] : parents_)
    if (holds(reference)) held.push_back(reference);
  return held;
}

std::uint32_t TopArea::heldSlot(std::uint32_t reference) const {
  return std::uint32_t((reference & ~kLeafBit) - segment_.first);
}

std::vector<std::uint32_t> TopArea::placeFrontier(const TreeBuffers& buffers,
                                                  std::span<const FrontierItem> frontier) {
  // The items not held take the next free slots, bodies and nodes apart, in the frontier's order:
  // each array's records are one run, written at once.
  const std::size_t firstBody = nextBody_, firstNode = nextNode_;
  std::array<std::vector<std::uint32_t>, 5> runs;  // bodies, tests, quads, boxes' min and max
  const auto append = [&](std::size_t run, const FrontierItem& item, std::size_t at,
                          std::size_t count) {
    runs[run].insert(runs[run].end(), item.words.begin() + std::ptrdiff_t(at),
                     item.words.begin() + std::ptrdiff_t(at + count));
  };
  std::vector<std::uint32_t> starts;
  for (const FrontierItem& item : frontier) {
    starts.push_back(parents_.at(item.reference));
    if (holds(item.reference)) continue;
    if ((item.reference & kLeafBit) != 0) {
      hash_.push_back({item.reference, std::uint32_t(nextBody_++)});
      append(0, item, 0, 4);
      continue;
    }
    hash_.push_back({item.reference, std::uint32_t(nextNode_++)});
    append(1, item, 0, 8);
    append(2, item, 8, 8);
    append(3, item, 16, 4);
    append(4, item, 20, 4);
  }
  buffers.writeRecords(kSortedBodies, firstBody, runs[0]);
  buffers.writeRecords(kNodeTest, 2 * firstNode, runs[1]);
  buffers.writeRecords(kNodeQuad, 2 * firstNode, runs[2]);
  buffers.writeRecords(kNodeBoxMin, firstNode, runs[3]);
  buffers.writeRecords(kNodeBoxMax, firstNode, runs[4]);
  return starts;
}

std::vector<std::array<std::uint32_t, 2>> TopArea::nodeHash() const {
  std::vector<std::array<std::uint32_t, 2>> nodes;
  std::copy_if(hash_.begin(), hash_.end(), std::back_inserter(nodes),
               [](const auto& entry) { return (entry[0] & kLeafBit) == 0; });
  return nodes;
}

std::vector<std::uint32_t> TopArea::heldEverywhere() const {
  std::vector<std::uint32_t> slots;
  const auto add = [&](std::uint32_t reference) {
    if ((reference & kLeafBit) == 0 && holds(reference))
      slots.push_back(std::uint32_t(reference - segment_.first));
  };
  for (const auto& [node, slot] : nodeSlots_) add(node);
  for (const auto& [reference, parent] : parents_) add(reference);
  std::sort(slots.begin(), slots.end());
  return slots;
}

}  // namespace nbody::tree
