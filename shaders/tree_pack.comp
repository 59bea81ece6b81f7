// A local essential tree's parcels (tree_let.h): copies records of this rank's arrays, chosen by
// slot, into one packed buffer, so that only what the LET sends leaves the GPU. Record i is a
// reference word (its slot + uReference) and then, NODES 1: node slot indices[i] + uRead as its two
// test and two quadrupole records (16 words); NODES 2: the same and its box's least and greatest
// corners (24 words: a frontier item, whose records every rank's top moments pass reads); NODES
// 0: body slot indices[i] + uRead as its position and mass (4 words): tree_let.h's LetNode,
// FrontierItem and LetBody. Bits are only moved.
// Files before this one: workgroup.glsl, group_rows.glsl, body_layout.glsl, tree_common.glsl,
// tree_arrays.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform uint uCount;
uniform uint uIndexFirst;  // the first slot's place in `indices`
uniform uint uRead;        // added to a slot to read its records
uniform uint uReference;   // added to a slot to name it (a record's first word)
uniform uint uFirstWord;   // the parcel's word record 0 starts at

READ_ARRAY(B_NODE_TEST, NodeTest, uvec4, nodeTest, usampler2D, .xyzw, nodeTestAt)
READ_ARRAY(B_NODE_QUAD, NodeQuad, vec4, nodeQuad, sampler2D, .xyzw, nodeQuadAt)
READ_ARRAY(B_SORTED_BODIES, SortedBodies, vec4, sortedBodies, sampler2D, .xyzw, sortedBodyAt)
READ_ARRAY(B_NODE_BOX_MIN, NodeBoxMin, vec4, nodeBoxMin, sampler2D, .xyzw, boxMinAt)
READ_ARRAY(B_NODE_BOX_MAX, NodeBoxMax, vec4, nodeBoxMax, sampler2D, .xyzw, boxMaxAt)
layout(std430, binding = B_LET_CHUNKS) readonly buffer Indices { uint indices[]; };
layout(std430, binding = B_LET_MARKS) writeonly buffer Parcel { uint parcel[]; };

const uint kWords = NODES == 2 ? 24u : NODES == 1 ? 16u : 4u;

void put(uint at, uvec4 words) {
  for (uint k = 0u; k < 4u; ++k) parcel[at + k] = words[k];
}

void main() {
  uint i = linearGroupId() * WORKGROUP_SIZE + gl_LocalInvocationID.x;
  if (i >= uCount) return;
  uint slot = indices[uIndexFirst + i];
  uint at = uFirstWord + (1u + kWords) * i, read = slot + uRead;
  parcel[at] = slot + uReference;
#if NODES
  put(at + 1u, nodeTestAt(nodeVec(read, 0u)));
  put(at + 5u, nodeTestAt(nodeVec(read, 1u)));
  put(at + 9u, floatBitsToUint(nodeQuadAt(nodeVec(read, 0u))));
  put(at + 13u, floatBitsToUint(nodeQuadAt(nodeVec(read, 1u))));
  if (NODES == 2) {
    put(at + 17u, floatBitsToUint(boxMinAt(read)));
    put(at + 21u, floatBitsToUint(boxMaxAt(read)));
  }
#else
  put(at + 1u, floatBitsToUint(sortedBodyAt(read)));
#endif
}
