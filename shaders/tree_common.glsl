// What every kernel of the Barnes-Hut tree (src/engines/tree/tree_gravity.h) shares: the shader storage
// bindings (one table, so the host binds each buffer once per evaluation), the work-group index of
// a dispatch spread over two dimensions (OpenGL promises only 65535 groups a dimension), and the
// radix sort's shape.

// Shader storage bindings. Matches enum Binding in src/engines/tree/tree_buffers.h.
#define B_BOUNDS 0            // uint[6]: min xyz, max xyz of the positions, as ordered uints
#define B_KEYS_IN 1           // uvec2[N]: sort input keys (x: bits 32..62, y: bits 0..31)
#define B_VALUES_IN 2         // uint[N]: sort input values (body indices)
#define B_KEYS_OUT 3          // uvec2[N]
#define B_VALUES_OUT 4        // uint[N]
#define B_BLOCK_COUNTS 5      // uint[RADIX x blocks]: digit d of block b at d * blocks + b
#define B_DIGIT_TOTALS 6      // uint[RADIX]
#define B_SORTED_BODIES 7     // vec4[N]: position + mass in key order
#define B_NODE_TEST 8         // uvec4[2 (N - 1)]: what the walk's opening test reads of a node (NODE_TEST_*)
#define B_NODE_QUAD 9         // vec4[2 (N - 1)]: what an accepted cell adds besides (NODE_QUAD_*)
#define B_NODE_BOX_MIN 10     // vec4[N - 1]: bounding box of the cell's bodies (build only)
#define B_NODE_BOX_MAX 11     // vec4[N - 1]
#define B_PARENTS 12          // uint[2N - 1]: parent of body leaf k at k, of internal node i at N + i
#define B_VISITS 13           // uint[N - 1]: children finished, for the bottom-up moments
#define B_GROUP_STATS 14      // uvec4[groups]: bodies, cells, nodes tested; overflows | spilled rows << 16
#define B_POTENTIAL 15        // double[groups]: sum of m_i phi_i over each group
#define B_SUM_IN 16           // double[]: tree_sum.comp's input
#define B_SUM_OUT 17          // double[]: tree_sum.comp's output
#define B_SPILL 18            // uint[]: the walk's spill pool: a taken flag per slot, then the slots

// A node's data in two 32-byte records, 16 words with nothing to spare, so that a node read at
// random costs one 32-byte memory sector to test and one more if it is accepted as a cell. In
// B_NODE_TEST (uvec4, floats as their bits) everything the opening test reads: the centre of mass
// rounded to float, c_hi, the opening radius^2 (grown by |c_lo|, so the test may leave c_lo out and
// still open every cell the exact centre of mass would: the test stays safe), and the node's
// links; in B_NODE_QUAD the second moments. The mass and the remainder c_lo = c - c_hi fill the
// words left, c_lo split over both: an accepted cell reads both records anyway.
#define NODE_TEST_COM 0u    // c_hi xyz, mass
#define NODE_TEST_LINKS 1u  // opening radius^2, the other end of the node's range, its split, c_lo.x
#define NODE_QUAD_A 0u      // second moments about the centre of mass: xx, yy, zz, xy
#define NODE_QUAD_B 1u      // xz, yz, c_lo.y, c_lo.z (the trace is xx + yy + zz)
uint nodeVec(uint node, uint part) { return 2u * node + part; }

// A child reference: a body leaf (sorted index k) has this bit set, an internal node does not.
const uint LEAF_BIT = 0x80000000u;

// A node of the Karras tree (tree_topology.comp) from its links: internal node i covers the sorted
// bodies between i and the other end of its range, and its children split that range after
// `split`; a child of one body is a body leaf. Returns first body, last body, left child, right child.
uvec4 nodeRange(uint node, uint otherEnd, uint split) {
  uint first = min(node, otherEnd), last = max(node, otherEnd);
  uint left = split == first ? LEAF_BIT | split : split;
  uint right = split + 1u == last ? LEAF_BIT | (split + 1u) : split + 1u;
  return uvec4(first, last, left, right);
}

// The radix sort: 8-bit digits, blocks of SORT_THREADS invocations x SORT_ITEMS keys.
#define RADIX 256u
#define SORT_THREADS 256
#define SORT_ITEMS 8u
#define SORT_BLOCK (SORT_ITEMS * 256u)

// The k-th key of sort block `block` this invocation takes (SORT_ITEMS of them, SORT_THREADS
// apart, so that consecutive invocations read consecutive keys).
uint sortItem(uint block, uint k) {
  return block * SORT_BLOCK + k * uint(SORT_THREADS) + gl_LocalInvocationID.x;
}

// Work group index of a dispatch of gl_NumWorkGroups.x x gl_NumWorkGroups.y groups, row by row.
uint linearGroupId() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

// Floats as uints whose unsigned order is the floats' order, for integer atomic min and max
// (exact, so the result does not depend on the order the atomics land in).
uint orderedFromFloat(float value) {
  uint bits = floatBitsToUint(value);
  return (bits & 0x80000000u) != 0u ? ~bits : bits | 0x80000000u;
}
float floatFromOrdered(uint ordered) {
  return uintBitsToFloat((ordered & 0x80000000u) != 0u ? ordered & 0x7fffffffu : ~ordered);
}

// The digit of a 63-bit key (hi in .x) that a radix pass at bit `shift` sorts by.
uint digitOf(uvec2 key, uint shift) {
  return (shift < 32u ? key.y >> shift : key.x >> (shift - 32u)) & (RADIX - 1u);
}
