#pragma once
// The tree's first stage: the bodies in the order of a space-filling curve. Bounding box (integer
// atomic min/max: exact) -> 63-bit Hilbert keys on a 2^21 grid, with the first radix digit counted
// in the same pass -> a stable LSD radix sort of (key, body index), kSortPasses passes of 8 bits,
// each a histogram, a scan of each digit's row and a scatter (shaders/tree_bounds.comp,
// tree_keys.comp, radix_*.comp).

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engines/tree/tree_buffers.h"
#include "engines/tree/tree_kernels.h"

namespace nbody::tree {

// Sorts the `bodyCount` bodies of the texture bound to kPositionUnit: afterwards the sorted keys
// and body indices are in kKeysIn and kValuesIn, bound as such.
void sortBodies(Kernels& kernels, const TreeBuffers& buffers, std::size_t bodyCount);

// sortBodies' two halves: the bounding box of the bodies into kBounds (ordered uints: min xyz,
// max xyz); then the keys in that box, sorted. A decomposed tree folds the box across ranks in
// between (tree_decompose.h).
void findBounds(Kernels& kernels, const TreeBuffers& buffers, std::size_t bodyCount);
void sortByKeys(Kernels& kernels, const TreeBuffers& buffers, std::size_t bodyCount);
// The box's six words, read back (waits for the GPU), and written.
std::array<std::uint32_t, 6> readBounds(const TreeBuffers& buffers);
void writeBounds(const TreeBuffers& buffers, const std::array<std::uint32_t, 6>& bounds);

// What the last sort left, read back (waits for the GPU): the body indices in key order, and the
// keys (hi << 32 | lo).
std::vector<std::uint32_t> readSortedBodies(const TreeBuffers& buffers, std::size_t bodyCount);
std::vector<std::uint64_t> readSortedKeys(const TreeBuffers& buffers, std::size_t bodyCount);

}  // namespace nbody::tree
