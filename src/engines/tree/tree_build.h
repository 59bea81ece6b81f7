#pragma once
// The tree's second stage, on the sorted bodies: a Karras binary radix tree, all N - 1 internal
// nodes at once, with the bodies gathered into key order (shaders/tree_topology.comp); then the
// moments bottom-up in one dispatch (tree_moments.comp: an integer counter per node, the second
// child to arrive computes it from both, in a fixed order): mass, centre of mass as float hi + lo,
// second moments about it, tight bounding box, opening radius^2 = (l / theta + delta + |c_lo|)^2.

#include <cstddef>

#include "engines/tree/tree_buffers.h"
#include "engines/tree/tree_kernels.h"

namespace nbody::tree {

// The nodes' links and the sorted bodies, from sortBodies' keys (positions at kPositionUnit).
void buildTopology(Kernels& kernels, std::size_t bodyCount);
// Every node's moments and opening radius for opening angle `theta` (0: every cell opened).
void computeMoments(Kernels& kernels, const TreeBuffers& buffers, std::size_t bodyCount,
                    double theta);
// Each body's local density from the tree the moments finished (tree_density.comp) into x of its
// texel of the image at kAccelerationImageUnit (bodies in a texture `textureWidth` wide): the mass
// of the smallest cell of at least `neighbours` bodies over the cube of its box's largest side.
void computeDensities(Kernels& kernels, std::size_t bodyCount, std::size_t neighbours,
                      int textureWidth);

}  // namespace nbody::tree
