// A local essential tree's parcels (tree_let.h): copies records of this rank's arrays, chosen by
// slot, into one packed buffer, so that only what the LET sends leaves the GPU. NODES 1: node
// slot indices[i] as its two test and two quadrupole records (16 words at 16 i); NODES 2: the
// same and its box's least and greatest corners (24 words at 24 i: a frontier item, whose records
// every rank's top moments pass reads); NODES 0: body slot indices[i] as its position and mass
// (4 words at 4 i). Bits are only moved.
// Files before this one: workgroup.glsl, body_layout.glsl, tree_common.glsl, tree_arrays.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform uint uCount;

READ_ARRAY(B_NODE_TEST, NodeTest, uvec4, nodeTest, usampler2D, .xyzw, nodeTestAt)
READ_ARRAY(B_NODE_QUAD, NodeQuad, vec4, nodeQuad, sampler2D, .xyzw, nodeQuadAt)
READ_ARRAY(B_SORTED_BODIES, SortedBodies, vec4, sortedBodies, sampler2D, .xyzw, sortedBodyAt)
READ_ARRAY(B_NODE_BOX_MIN, NodeBoxMin, vec4, nodeBoxMin, sampler2D, .xyzw, boxMinAt)
READ_ARRAY(B_NODE_BOX_MAX, NodeBoxMax, vec4, nodeBoxMax, sampler2D, .xyzw, boxMaxAt)
layout(std430, binding = B_LET_CHUNKS) readonly buffer Indices { uint indices[]; };
layout(std430, binding = B_LET_MARKS) writeonly buffer Parcel { uvec4 parcel[]; };

void main() {
  uint i = linearGroupId() * WORKGROUP_SIZE + gl_LocalInvocationID.x;
  if (i >= uCount) return;
  uint slot = indices[i];
#if NODES
  uint at = (NODES == 2 ? 6u : 4u) * i;
  parcel[at] = nodeTestAt(nodeVec(slot, 0u));
  parcel[at + 1u] = nodeTestAt(nodeVec(slot, 1u));
  parcel[at + 2u] = floatBitsToUint(nodeQuadAt(nodeVec(slot, 0u)));
  parcel[at + 3u] = floatBitsToUint(nodeQuadAt(nodeVec(slot, 1u)));
  if (NODES == 2) {
    parcel[at + 4u] = floatBitsToUint(boxMinAt(slot));
    parcel[at + 5u] = floatBitsToUint(boxMaxAt(slot));
  }
#else
  parcel[i] = floatBitsToUint(sortedBodyAt(slot));
#endif
}
