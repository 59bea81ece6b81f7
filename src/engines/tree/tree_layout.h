#pragma once
// What the tree's C++ and its kernels (shaders/tree_*.comp, radix_*.comp) must agree on, defined
// here once and handed to every tree kernel as defines (layoutDefines): the shader storage
// bindings, one buffer each, and the radix sort's shape.

#include <array>
#include <cstddef>
#include <cstdint>

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
  kNodeTest,    // uvec4[2 (N - 1)]: what the walk's opening test reads of a node (tree_common.glsl)
  kNodeQuad,    // vec4[2 (N - 1)]: what an accepted cell adds besides (tree_common.glsl)
  kNodeBoxMin,  // vec4[N - 1]: bounding box of the cell's bodies (build only)
  kNodeBoxMax,  // vec4[N - 1]
  kParents,     // uint[2N - 1]: parent of body leaf k at k, of internal node i at N + i
  kVisits,      // uint[N - 1]: children finished, for the bottom-up moments
  kGroupStats,  // uvec4[groups]: bodies, cells, nodes tested; overflows | spilled rows << 16
  kPotential,   // double[groups]: sum of m_i phi_i over each group
  kSpill,       // uint[]: the walk's spill pool: a taken flag per slot, then the slots
  kSlotHash,    // uint misses, uint, uvec2[]: a walker's hash of references to slots
                // (tree_slots.glsl)
  kBindingCount
};
inline constexpr std::array<const char*, kBindingCount> kBindingDefines = {
    "B_BOUNDS",       "B_KEYS_IN",      "B_VALUES_IN",     "B_KEYS_OUT",  "B_VALUES_OUT",
    "B_BLOCK_COUNTS", "B_DIGIT_TOTALS", "B_SORTED_BODIES", "B_NODE_TEST", "B_NODE_QUAD",
    "B_NODE_BOX_MIN", "B_NODE_BOX_MAX", "B_PARENTS",       "B_VISITS",    "B_GROUP_STATS",
    "B_POTENTIAL",    "B_SPILL",        "B_SLOT_HASH"};
// The decomposed tree's own buffers, after TreeBuffers' bindings, bound by the kernel that reads
// them: at the first, the splitter candidates (uvec4[]: tree_decompose.h's), the top moments
// pass's start nodes, the local essential tree's chunks (tree_let.h), the lists of MarkLists
// (tree_lists.h), records to place or hash (tree_hash.comp) and IDs to fetch (tree_fetch.comp); at
// the second, marks, packed records and a home's IDs; at the third, the lists' counts and a home's
// sorted IDs. A GPU must offer kBindingsUsed.
inline constexpr GLuint kSplitBinding = kBindingCount;
inline constexpr GLuint kLetChunksBinding = kSplitBinding;
inline constexpr GLuint kLetMarksBinding = kBindingCount + 1;
inline constexpr GLuint kLetListsBinding = kBindingCount + 2;
inline constexpr GLuint kBindingsUsed = kBindingCount + 3;
// The walk's order of its groups (WalkParts::order), where it has one: no LET kernel runs with it.
inline constexpr GLuint kGroupOrderBinding = kLetListsBinding;

// A child reference to a body leaf (sorted position k) has this bit set (tree_common.glsl's
// LEAF_BIT); one to an internal node does not.
inline constexpr std::uint32_t kLeafBit = 0x80000000u;

// The radix sort: 8-bit digits of the 63-bit keys in kSortPasses passes, each over blocks of
// kSortThreads invocations x kSortItems keys. The histogram, the scan of a digit's row and the
// scatter give each invocation a digit, so a block's invocations are its digits.
constexpr std::size_t kRadix = 256;
constexpr int kSortPasses = 8;
constexpr std::size_t kSortThreads = 256;
constexpr std::size_t kSortItems = 8;
constexpr std::size_t kSortBlock = kSortThreads * kSortItems;
static_assert(kSortThreads == kRadix, "a sort block's invocations are its digits");

// The arrays of one or two records a body that may outgrow one shader storage block: each a
// buffer, or all of them 2-D textures where the largest would be over one block
// (shaders/tree_arrays.glsl): read through a sampler at texture unit kArrayTextureUnits + binding,
// written through image unit `imageUnit` (0: never written through an image). The others stay
// buffers: the values and the visits (4 bytes a body, under 2 GiB up to 536M bodies), and what
// is sized by groups or blocks.
struct TextureArray {
  Binding binding;
  GLenum internalFormat, clientFormat;  // the texture's, and its texels' as a read returns them
  std::size_t recordBytes;              // one texel: one element of the buffer it stands for
  int imageUnit;
  const char* imageDefine;  // the kernels' name of imageUnit (I_*); nullptr where it is 0
};
inline constexpr int kArrayTextureUnits = 1;  // after the positions' unit 0
inline constexpr std::array<TextureArray, 8> kTextureArrays = {{
    {kKeysIn, GL_RG32UI, GL_RG_INTEGER, 8, 0, nullptr},
    {kKeysOut, GL_RG32UI, GL_RG_INTEGER, 8, 1, "I_KEYS_OUT"},
    {kSortedBodies, GL_RGBA32F, GL_RGBA, 16, 2, "I_SORTED_BODIES"},
    {kNodeTest, GL_RGBA32UI, GL_RGBA_INTEGER, 16, 3, "I_NODE_TEST"},
    {kNodeQuad, GL_RGBA32F, GL_RGBA, 16, 4, "I_NODE_QUAD"},
    {kNodeBoxMin, GL_RGBA32F, GL_RGBA, 16, 5, "I_NODE_BOX_MIN"},
    {kNodeBoxMax, GL_RGBA32F, GL_RGBA, 16, 6, "I_NODE_BOX_MAX"},
    {kParents, GL_R32UI, GL_RED_INTEGER, 4, 7, "I_PARENTS"},
}};
// kTextureArrays' entry for `binding`, or nullptr where that binding is always a buffer.
const TextureArray* textureArrayOf(Binding binding);

// Where the tree's arrays live for an evaluation: in buffers, or in textures of 2^widthLog2
// texels a row.
struct ArrayStorage {
  bool inTextures = false;
  int widthLog2 = 0;
  // TREE_ARRAYS_IN_TEXTURES, ARRAY_WIDTH_LOG2, ARRAY_TEXTURE_UNITS and the I_* image units.
  gl::Defines defines() const;
  // What a glMemoryBarrier between two tree kernels must name for the second to see the first's
  // stores to these arrays.
  GLbitfield barrierBits() const;
  friend bool operator==(const ArrayStorage&, const ArrayStorage&) = default;
};

// Where the kernels find nodes and bodies (shaders/tree_slots.glsl): a decomposed tree's walker
// holds the sorted positions [first, first + count), its own bodies after `bodiesBelow` received
// ones, and a hash of `hashEntries` entries (a power of two) for the references it received. The
// default, not `mapped`, is one GPU's: every position at its index, no hash.
struct SlotMap {
  bool mapped = false;
  std::size_t first = 0, count = 0, bodiesBelow = 0, hashEntries = 0;
};

// B_* (the bindings, B_SPLIT and B_LET_* too), RADIX, SORT_THREADS, SORT_ITEMS, SORT_BLOCK.
gl::Defines layoutDefines();

}  // namespace nbody::tree
