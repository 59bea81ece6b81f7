// The decomposed tree's splitters (docs/decomposed-tree-design.md, section 1): for each candidate
// composite (key, ID), how many of this rank's home bodies come before it in the global order.
// The home's (key, local index) pairs are sorted (kKeysIn, kValuesIn), so its composites, the
// local index taken as uFirstId + index (HELD_IDS 0) or as the ID heldIds[index] (HELD_IDS 1: IDs
// ascending with the index), rise strictly: an invocation a candidate finds its place by binary
// search. The host adds these counts across ranks as integers and refines the candidates
// twelve bits at a time (tree_decompose.cpp).
// Files before this one: workgroup.glsl, group_rows.glsl, body_layout.glsl, tree_common.glsl,
// tree_arrays.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform uint uCount;       // the home's sorted bodies
uniform uint uFirstId;     // the home's first ID
uniform uint uCandidates;

READ_ARRAY(B_KEYS_IN, KeysIn, uvec2, keysIn, usampler2D, .xy, keyAt)
layout(std430, binding = B_VALUES_IN) readonly buffer ValuesIn { uint valuesIn[]; };
// xyz: a composite (key bits 32..62, key bits 0..31, ID); w: the bodies before it, written here.
layout(std430, binding = B_SPLIT) buffer Candidates { uvec4 candidates[]; };
#if HELD_IDS
layout(std430, binding = B_LET_MARKS) readonly buffer HeldIds { uint heldIds[]; };
uint idOf(uint index) { return heldIds[index]; }
#else
uint idOf(uint index) { return uFirstId + index; }
#endif

bool before(uint i, uvec3 candidate) {
  uvec2 key = keyAt(i);
  if (key.x != candidate.x) return key.x < candidate.x;
  if (key.y != candidate.y) return key.y < candidate.y;
  return idOf(valuesIn[i]) < candidate.z;
}

void main() {
  uint c = linearGroupId() * WORKGROUP_SIZE + gl_LocalInvocationID.x;
  if (c >= uCandidates) return;
  uvec3 candidate = candidates[c].xyz;
  uint low = 0u, high = uCount;
  while (low < high) {
    uint middle = low + (high - low) / 2u;
    if (before(middle, candidate)) low = middle + 1u; else high = middle;
  }
  candidates[c].w = low;
}
