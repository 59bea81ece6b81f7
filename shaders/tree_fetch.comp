// The decomposed tree's gathers by index (tree_decomposed.h, tree_migrate.h). WORDS 0: while the
// state is replicated, a rank needs only IDs: body i of a home or a walker, whose ID is ids[i], is
// copied from the positions every rank holds (texel ID, the texture at unit 0) to the home's or
// walker's positions (texel i, the image at unit 0). WORDS 1: the IDs of a home's sorted bodies,
// ids[valuesIn[i]] (valuesIn: the local index of sorted body i), into `sorted`. Bits only move,
// as the sort's gather moves them on one GPU.
// Files before this one: workgroup.glsl, body_layout.glsl, tree_common.glsl, tree_arrays.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform uint uCount;

#if WORDS
layout(std430, binding = B_VALUES_IN) readonly buffer ValuesIn { uint valuesIn[]; };
layout(std430, binding = B_LET_MARKS) readonly buffer Ids { uint ids[]; };
layout(std430, binding = B_LET_LISTS) writeonly buffer Sorted { uint sorted[]; };
#else
uniform sampler2D uPositionMass;
layout(std430, binding = B_LET_CHUNKS) readonly buffer Ids { uint ids[]; };
layout(rgba32f, binding = 0) writeonly uniform image2D uBodies;

ivec2 texelIn(uint index, int width) {
  return ivec2(int(index % uint(width)), int(index / uint(width)));
}
#endif

void main() {
  uint i = linearGroupId() * WORKGROUP_SIZE + gl_LocalInvocationID.x;
  if (i >= uCount) return;
#if WORDS
  sorted[i] = ids[valuesIn[i]];
#else
  vec4 body = texelFetch(uPositionMass, texelIn(ids[i], textureSize(uPositionMass, 0).x), 0);
  imageStore(uBodies, texelIn(i, imageSize(uBodies).x), body);
#endif
}
