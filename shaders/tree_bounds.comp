// The bounding box of the bodies: each work group reduces its bodies in shared memory, then one
// invocation folds the group's box into B_BOUNDS with integer atomic min and max of ordered uints
// (exact, so the result is the same whatever order the groups finish in). The host clears
// B_BOUNDS to (max, max, max, 0, 0, 0) first. Files before this one: body_layout.glsl,
// tree_common.glsl.

layout(local_size_x = 256) in;

uniform sampler2D uPositionMass;  // body i at texel (i % width, i / width)
uniform uint uBodyCount;
uniform uint uBodiesPerInvocation;

layout(std430, binding = B_BOUNDS) coherent buffer Bounds { uint bounds[6]; };

shared vec3 groupMin[256];
shared vec3 groupMax[256];

void main() {
  uint local = gl_LocalInvocationID.x;
  int width = textureSize(uPositionMass, 0).x;
  uint first = linearGroupId() * 256u * uBodiesPerInvocation + local;
  vec3 low = vec3(uintBitsToFloat(0x7f800000u)), high = -low;
  for (uint k = 0u; k < uBodiesPerInvocation; ++k) {
    uint i = first + k * 256u;
    if (i >= uBodyCount) break;
    vec3 p = texelFetch(uPositionMass, texelOfBody(int(i), width), 0).xyz;
    low = min(low, p);
    high = max(high, p);
  }
  groupMin[local] = low;
  groupMax[local] = high;
  barrier();
  for (uint live = 128u; live > 0u; live >>= 1) {
    if (local < live) {
      groupMin[local] = min(groupMin[local], groupMin[local + live]);
      groupMax[local] = max(groupMax[local], groupMax[local + live]);
    }
    barrier();
  }
  if (local < 3u) {
    atomicMin(bounds[local], orderedFromFloat(groupMin[0][local]));
    atomicMax(bounds[local + 3u], orderedFromFloat(groupMax[0][local]));
  }
}
