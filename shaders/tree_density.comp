// Each body's local density from the tree just built: the mass of the smallest cell (tree node)
// holding at least uNeighbours bodies, over the cube of the largest side of its bodies' bounding
// box, into x of the body's texel of uAcceleration (+inf where those bodies sit at one point, 0
// for a lone body). The cell is found by climbing from the body's leaf through its parents, so it
// follows the tree's cut of space: an estimate of the density around the body, deterministic, in
// one pass over the bodies.
// Files before this one: workgroup.glsl, group_rows.glsl, body_layout.glsl, tree_common.glsl,
// tree_arrays.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform uint uBodyCount;
uniform uint uNeighbours;
uniform int uTextureWidth;
layout(rgba32f) writeonly uniform image2DArray uAcceleration;  // layer 0

layout(std430, binding = B_VALUES_IN) readonly buffer SortedIndex { uint sortedIndex[]; };
READ_ARRAY(B_PARENTS, Parents, uint, parents, usampler2D, .x, parentAt)
READ_ARRAY(B_NODE_TEST, NodeTest, uvec4, nodeTest, usampler2D, .xyzw, nodeTestAt)
READ_ARRAY(B_NODE_BOX_MIN, NodeBoxMin, vec4, nodeBoxMin, sampler2D, .xyzw, boxMinAt)
READ_ARRAY(B_NODE_BOX_MAX, NodeBoxMax, vec4, nodeBoxMax, sampler2D, .xyzw, boxMaxAt)

// Bodies under internal node `node`: it covers the sorted bodies from itself to the other end of
// its range (tree_topology.comp).
uint bodiesUnder(uint node) {
  uint otherEnd = nodeTestAt(nodeVec(node, NODE_TEST_LINKS)).y;
  return max(node, otherEnd) - min(node, otherEnd) + 1u;
}

float densityOf(uint sortedBody) {
  if (uBodyCount < 2u) return 0.0;
  uint node = parentAt(sortedBody);
  while (bodiesUnder(node) < uNeighbours && node != 0u) node = parentAt(uBodyCount + node);
  float mass = uintBitsToFloat(nodeTestAt(nodeVec(node, NODE_TEST_COM)).w);
  vec3 side = boxMaxAt(node).xyz - boxMinAt(node).xyz;
  float largest = max(max(side.x, side.y), side.z);
  return largest > 0.0 ? mass / (largest * largest * largest) : uintBitsToFloat(0x7f800000u);
}

void main() {
  uint k = linearGroupId() * uint(WORKGROUP_SIZE) + gl_LocalInvocationID.x;
  if (k >= uBodyCount) return;
  imageStore(uAcceleration, ivec3(texelOfBody(int(sortedIndex[k]), uTextureWidth), 0),
             vec4(densityOf(k), 0.0, 0.0, 0.0));
}
