#pragma once
// The tree's second stage, on the sorted bodies: a Karras binary radix tree, all N - 1 internal
// nodes at once, with the bodies gathered into key order (shaders/tree_topology.comp); then the
// moments bottom-up in one dispatch (tree_moments.comp: an integer counter per node, the second
// child to arrive computes it from both, in a fixed order): mass, centre of mass as float hi + lo,
// second moments about it, tight bounding box, opening radius^2 = (l / theta + delta + |c_lo|)^2.

#include <array>
#include <cstddef>
#include <cstdint>

#include "engines/tree/tree_buffers.h"
#include "engines/tree/tree_kernels.h"
#include "gl/objects.h"

namespace nbody::tree {

// The nodes' links and the sorted bodies, from sortBodies' keys (positions at kPositionUnit).
void buildTopology(Kernels& kernels, std::size_t bodyCount);

// The part of the order a decomposed tree's walker holds: sorted positions [first, first + count)
// of every rank's `bodyCount`, in slots from 0 (its keys, values and positions), and the keys at
// positions first - 1 and first + count (high word, low word) where they exist.
struct TopologySegment {
  std::size_t first = 0, count = 0;
  std::array<std::uint32_t, 4> haloKeys{};
};
// The links of the nodes whose index lies in the segment, in slot index - first, as one GPU's;
// but a node whose range leaves the segment (it straddles a boundary) gets otherEnd and split
// kStraddling, and its children no parent. Parents: leaf k at slot k - first, internal node c at
// count + c - first, holding global indices.
inline constexpr std::uint32_t kStraddling = 0xffffffffu;
void buildTopology(Kernels& kernels, std::size_t bodyCount, const TopologySegment& segment);
// Every node's moments and opening radius for opening angle `theta` (0: every cell opened).
// A walker's local pass (`slots`): the nodes whose leaves it holds, climbing from them; its top
// pass (`starts`: a buffer of `count` node references), climbing from those nodes. Every visit
// count is cleared first.
struct MomentStarts {
  GLuint buffer = 0;
  std::size_t count = 0;
};
void computeMoments(Kernels& kernels, const TreeBuffers& buffers, std::size_t bodyCount,
                    double theta, const SlotMap& slots = {}, const MomentStarts& starts = {});
// Each body's local density from the tree the moments finished (tree_density.comp) into x of its
// texel of the image at kAccelerationImageUnit (bodies in a texture `textureWidth` wide): the mass
// of the smallest cell of at least `neighbours` bodies over the cube of its box's largest side.
void computeDensities(Kernels& kernels, std::size_t bodyCount, std::size_t neighbours,
                      int textureWidth);

}  // namespace nbody::tree
