// What every kernel of the Barnes-Hut tree (src/engines/tree/tree_gravity.h) shares besides the
// defines src/engines/tree/tree_layout.h hands them (the shader storage bindings B_*, what each
// buffer holds, and the radix sort's RADIX, SORT_THREADS, SORT_ITEMS, SORT_BLOCK): a node's
// records, the work-group index of a dispatch spread over two dimensions (OpenGL promises only
// 65535 groups a dimension), and the sort's digits.

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

// The k-th key of sort block `block` this invocation takes (SORT_ITEMS of them, SORT_THREADS
// apart, so that consecutive invocations read consecutive keys).
uint sortItem(uint block, uint k) {
  return block * SORT_BLOCK + k * uint(SORT_THREADS) + gl_LocalInvocationID.x;
}

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
