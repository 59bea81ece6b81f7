// The tree from the sorted keys (Karras 2012, "Maximizing parallelism in the construction of
// BVHs, octrees and k-d trees"): a binary radix tree whose N - 1 internal nodes are all built at
// once, node i by two binary searches over the keys near position i. Keys are made unique by
// extending them with the sorted position (ties were already broken by body index), so equal keys
// split by index and the tree always ends in single-body leaves. Every node covers a contiguous
// range of sorted bodies, which the walk uses: an opened cell of few bodies becomes one range of
// body-body interactions. The same pass gathers the bodies into key order.
// Files before this one: workgroup.glsl, group_rows.glsl, body_layout.glsl, tree_common.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform sampler2D uPositionMass;
uniform uint uBodyCount;  // N, of every rank
// The sorted positions this dispatch holds, [uFirst, uFirst + uCount) (0 and N on one GPU); the
// arrays hold them from slot 0. A decomposed tree's walker holds a segment of them, and the keys
// next to it (at position uFirst - 1 in 0 and 1, at uFirst + uCount in 2 and 3; high word first)
// where there are such.
uniform uint uFirst;
uniform uint uCount;
uniform uint uHaloKeys[4];

READ_ARRAY(B_KEYS_IN, KeysIn, uvec2, keysIn, usampler2D, .xy, keyAt)
layout(std430, binding = B_VALUES_IN) readonly buffer Values { uint sortedIndex[]; };
WRITE_ARRAY(B_SORTED_BODIES, I_SORTED_BODIES, SortedBodies, vec4, sortedBodies, image2D, rgba32f, setSortedBody)
WRITE_ARRAY(B_NODE_TEST, I_NODE_TEST, NodeTest, uvec4, nodeTest, uimage2D, rgba32ui, setNodeTest)
WRITE_ARRAY(B_PARENTS, I_PARENTS, Parents, uint, parents, uimage2D, r32ui, setParent)

// The key at sorted position x, which lies between the halo keys' positions.
uvec2 keyAtPosition(int x) {
  if (x < int(uFirst)) return uvec2(uHaloKeys[0], uHaloKeys[1]);
  if (x >= int(uFirst + uCount)) return uvec2(uHaloKeys[2], uHaloKeys[3]);
  return keyAt(uint(x) - uFirst);
}

// Length of the common prefix of the extended keys at sorted positions i (held here) and j (-1
// outside [0, N)). Past a halo key, j answers with that key and its own position. Prefixes only
// shrink away from i, for the true keys and for these answers alike (a key is constant there, and
// i ^ j's top bit grows), so a node whose range ends inside the segment gets its one-GPU links,
// and one whose range reaches a halo key is found to straddle (docs/decomposed-tree-design.md, 3).
int commonPrefix(int i, int j) {
  if (j < 0 || j >= int(uBodyCount)) return -1;
  uvec2 a = keyAtPosition(i), b = keyAtPosition(j);
  if (a.x != b.x) return 31 - findMSB(a.x ^ b.x);
  if (a.y != b.y) return 63 - findMSB(a.y ^ b.y);
  return 95 - findMSB(uint(i) ^ uint(j));
}

// Position i + `distance` d, or -1 past either end of [0, N): distances reach 2^31 where N passes
// 2^30, more than an int holds.
int positionFrom(int i, uint distance, int d) {
  if (d > 0) return distance < uBodyCount - uint(i) ? i + int(distance) : -1;
  return distance <= uint(i) ? i - int(distance) : -1;
}

// The other end of node i's range: direction d, then an exponential and a binary search (no
// bound past N: the range ends before it).
int rangeEnd(int i, int d) {
  int minimumPrefix = commonPrefix(i, i - d);
  uint bound = 2u;
  while (bound < uBodyCount && commonPrefix(i, positionFrom(i, bound, d)) > minimumPrefix)
    bound *= 2u;
  uint length = 0u;
  for (uint step = bound / 2u; step >= 1u; step /= 2u)
    if (commonPrefix(i, positionFrom(i, length + step, d)) > minimumPrefix) length += step;
  return positionFrom(i, length, d);
}

// Where the range [min(i, j), max(i, j)] splits: the last position sharing the node's prefix
// with i, seen from i's end.
int splitOf(int i, int j, int d) {
  int nodePrefix = commonPrefix(i, j);
  int length = abs(j - i);
  int split = 0;
  int step = length;
  do {
    step = (step + 1) / 2;
    if (commonPrefix(i, i + (split + step) * d) > nodePrefix) split += step;
  } while (step > 1);
  return i + split * d + min(d, 0);
}

const uint STRADDLING = 0xffffffffu;  // the links of a node whose range leaves the segment

// Where a node's parent goes: body leaf k at its slot, internal node c after the leaves.
uint parentSlot(uint child) {
  return (child & LEAF_BIT) != 0u ? (child & ~LEAF_BIT) - uFirst : uCount + child - uFirst;
}

// Node i's links (the rest of its record is the moments' to write) and its children's parent, at
// its slot. A node whose range leaves the segment straddles it: its links say STRADDLING, and
// the host writes them and its children's parents.
void buildNode(int i) {
  int d = commonPrefix(i, i + 1) - commonPrefix(i, i - 1) >= 0 ? 1 : -1;
  int j = rangeEnd(i, d);
  uint slot = uint(i) - uFirst;
  if (j < int(uFirst) || j >= int(uFirst + uCount)) {
    setNodeTest(nodeVec(slot, NODE_TEST_LINKS), uvec4(0u, STRADDLING, STRADDLING, 0u));
    return;
  }
  int split = splitOf(i, j, d);
  setNodeTest(nodeVec(slot, NODE_TEST_LINKS), uvec4(0u, uint(j), uint(split), 0u));
  uvec4 range = nodeRange(uint(i), uint(j), uint(split));
  setParent(parentSlot(range.z), uint(i));
  setParent(parentSlot(range.w), uint(i));
}

void main() {
  uint k = linearGroupId() * uint(WORKGROUP_SIZE) + gl_LocalInvocationID.x;
  if (k >= uCount) return;
  int width = textureSize(uPositionMass, 0).x;
  setSortedBody(k, texelFetch(uPositionMass, texelOfBody(int(sortedIndex[k]), width), 0));
  if (uFirst + k + 1u < uBodyCount) buildNode(int(uFirst + k));
}
