#pragma once
// What the tree's C++ and its kernels (shaders/tree_*.comp, radix_*.comp) must agree on, defined
// here once and handed to every tree kernel as defines (layoutDefines): the shader storage
// bindings, one buffer each, and the radix sort's shape.

#include <array>
#include <cstddef>

#include "gl/defines.h"
#include "gl/objects.h"

namespace nbody::tree {

// Shader storage bindings, each a buffer of TreeBuffers; binding b is the define
// kBindingDefines[b] in GLSL. N bodies, N - 1 internal nodes.
enum Binding : GLuint {
  kBounds = 0,    // uint[6]: min xyz, max xyz of the positions, as ordered uints
  kKeysIn,        // uvec2[N]: sort input keys (x: bits 32..62, y: bits 0..31)
  kValuesIn,      // uint[N]: sort input values (body indices)
  kKeysOut,       // uvec2[N]
  kValuesOut,     // uint[N]
  kBlockCounts,   // uint[kRadix x blocks]: digit d of block b at d * blocks + b
  kDigitTotals,   // uint[kRadix]
  kSortedBodies,  // vec4[N]: position + mass in key order
  kNodeTest,      // uvec4[2 (N - 1)]: what the walk's opening test reads of a node (tree_common.glsl)
  kNodeQuad,      // vec4[2 (N - 1)]: what an accepted cell adds besides (tree_common.glsl)
  kNodeBoxMin,    // vec4[N - 1]: bounding box of the cell's bodies (build only)
  kNodeBoxMax,    // vec4[N - 1]
  kParents,       // uint[2N - 1]: parent of body leaf k at k, of internal node i at N + i
  kVisits,        // uint[N - 1]: children finished, for the bottom-up moments
  kGroupStats,    // uvec4[groups]: bodies, cells, nodes tested; overflows | spilled rows << 16
  kPotential,     // double[groups]: sum of m_i phi_i over each group
  kSumIn,         // double[]: tree_sum.comp's input
  kSumOut,        // double[]: tree_sum.comp's output
  kSpill,         // uint[]: the walk's spill pool: a taken flag per slot, then the slots
  kBindingCount
};
inline constexpr std::array<const char*, kBindingCount> kBindingDefines = {
    "B_BOUNDS",       "B_KEYS_IN",      "B_VALUES_IN",     "B_KEYS_OUT",    "B_VALUES_OUT",
    "B_BLOCK_COUNTS", "B_DIGIT_TOTALS", "B_SORTED_BODIES", "B_NODE_TEST",   "B_NODE_QUAD",
    "B_NODE_BOX_MIN", "B_NODE_BOX_MAX", "B_PARENTS",       "B_VISITS",      "B_GROUP_STATS",
    "B_POTENTIAL",    "B_SUM_IN",       "B_SUM_OUT",       "B_SPILL"};

// The radix sort: 8-bit digits of the 63-bit keys in kSortPasses passes, each over blocks of
// kSortThreads invocations x kSortItems keys. The histogram, the scan of a digit's row and the
// scatter give each invocation a digit, so a block's invocations are its digits.
constexpr std::size_t kRadix = 256;
constexpr int kSortPasses = 8;
constexpr std::size_t kSortThreads = 256;
constexpr std::size_t kSortItems = 8;
constexpr std::size_t kSortBlock = kSortThreads * kSortItems;
static_assert(kSortThreads == kRadix, "a sort block's invocations are its digits");

// B_* (the bindings), RADIX, SORT_THREADS, SORT_ITEMS, SORT_BLOCK.
gl::Defines layoutDefines();

}  // namespace nbody::tree
