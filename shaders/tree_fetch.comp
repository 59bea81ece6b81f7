// The decomposed tree's walker bodies (tree_decomposed.h): while the state is replicated, a walker
// needs only its segment's IDs. Body i of the segment, whose ID is ids[i], is copied from the
// positions every rank holds (texel ID, the texture at unit 0) to the walker's positions (texel i,
// the image at unit 0). Bits are only moved, as the sort's gather moves them on one GPU.
// Files before this one: workgroup.glsl, body_layout.glsl, tree_common.glsl, tree_arrays.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform sampler2D uPositionMass;
uniform uint uCount;

layout(std430, binding = B_LET_CHUNKS) readonly buffer Ids { uint ids[]; };
layout(rgba32f, binding = 0) writeonly uniform image2D uWalkerBodies;

ivec2 texelIn(uint index, int width) { return ivec2(int(index % uint(width)), int(index / uint(width))); }

void main() {
  uint i = linearGroupId() * WORKGROUP_SIZE + gl_LocalInvocationID.x;
  if (i >= uCount) return;
  vec4 body = texelFetch(uPositionMass, texelIn(ids[i], textureSize(uPositionMass, 0).x), 0);
  imageStore(uWalkerBodies, texelIn(i, imageSize(uWalkerBodies).x), body);
}
