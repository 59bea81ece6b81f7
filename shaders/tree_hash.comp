// A walker's slot hash (tree_slots.glsl) filled on the GPU, and the local essential tree a walker
// received placed (tree_let.h, LetSelection::place). An entry (a global reference and its slot)
// goes to the first free place of its probe sequence, claimed by an atomic compare-and-swap, so the
// host neither probes nor uploads the table. The places depend on the order the invocations run
// in, what a lookup finds does not: references are unique. The table (uMask + 1 entries, cleared
// before) starts after the misses' and an unused word. `records` holds, PLACE 0: entries, two words
// each; PLACE 1: the nodes received (LetNode: the index, then the words of its two test and two
// quadrupole records), node i placed at node slot uFirstSlot + i; PLACE 2: the bodies received
// (LetBody: the sorted position, then position and mass), body i at body slot i where it came from
// a lower rank (i < uBelow), else after the walker's own uOwn bodies. Bits are only moved.
// Files before this one: workgroup.glsl, group_rows.glsl, body_layout.glsl, tree_common.glsl,
// tree_arrays.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform uint uCount;        // entries or records
uniform uint uRecordWords;  // PLACE 1 and 2: words a record
uniform uint uMask;
uniform uint uFirstSlot;  // PLACE 1
uniform uint uBelow;      // PLACE 2
uniform uint uOwn;        // PLACE 2

layout(std430, binding = B_SLOT_HASH) buffer SlotHash { uint hashWords[]; };
layout(std430, binding = B_LET_CHUNKS) readonly buffer Records { uint records[]; };
#if PLACE == 1
WRITE_ARRAY(B_NODE_TEST, I_NODE_TEST, NodeTest, uvec4, nodeTest, uimage2D, rgba32ui, setNodeTest)
WRITE_ARRAY(B_NODE_QUAD, I_NODE_QUAD, NodeQuad, vec4, nodeQuad, image2D, rgba32f, setNodeQuad)
#elif PLACE == 2
WRITE_ARRAY(B_SORTED_BODIES, I_SORTED_BODIES, SortedBodies, vec4, sortedBodies, image2D, rgba32f,
            setSortedBody)
#endif

// A full table (which the host's sizing rules out) counts a miss, as a lookup that fails does.
void insert(uint reference, uint slot) {
  uint at = (reference * 0x9e3779b1u) & uMask;
  for (uint probes = 0u; atomicCompSwap(hashWords[2u + 2u * at], 0u, reference + 1u) != 0u;
       at = (at + 1u) & uMask)
    if (++probes > uMask) {
      atomicAdd(hashWords[0], 1u);
      return;
    }
  hashWords[3u + 2u * at] = slot;
}

uvec4 wordsAt(uint at) {
  return uvec4(records[at], records[at + 1u], records[at + 2u], records[at + 3u]);
}

void main() {
  uint i = linearGroupId() * WORKGROUP_SIZE + gl_LocalInvocationID.x;
  if (i >= uCount) return;
#if PLACE == 0
  insert(records[2u * i], records[2u * i + 1u]);
#elif PLACE == 1
  uint at = uRecordWords * i, slot = uFirstSlot + i;
  setNodeTest(nodeVec(slot, 0u), wordsAt(at + 1u));
  setNodeTest(nodeVec(slot, 1u), wordsAt(at + 5u));
  setNodeQuad(nodeVec(slot, 0u), uintBitsToFloat(wordsAt(at + 9u)));
  setNodeQuad(nodeVec(slot, 1u), uintBitsToFloat(wordsAt(at + 13u)));
  insert(records[at], slot);
#else
  uint at = uRecordWords * i, slot = i < uBelow ? i : i + uOwn;
  setSortedBody(slot, uintBitsToFloat(wordsAt(at + 1u)));
  insert(LEAF_BIT | records[at], slot);
#endif
}
