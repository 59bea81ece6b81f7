// The bounding box of the bodies: each work group reduces its bodies in shared memory, then one
// invocation folds the group's box into B_BOUNDS with integer atomic min and max of ordered uints
// (exact, so the result is the same whatever order the groups finish in). The host clears
// B_BOUNDS to (max, max, max, 0, 0, 0) first.
// Files before this one: workgroup.glsl, group_rows.glsl, body_layout.glsl, tree_common.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform sampler2D uPositionMass;  // body i at texel (i % width, i / width)
uniform uint uBodyCount;
uniform uint uBodiesPerInvocation;

layout(std430, binding = B_BOUNDS) coherent buffer Bounds { uint bounds[6]; };

shared vec3 groupMin[WORKGROUP_SIZE];
shared vec3 groupMax[WORKGROUP_SIZE];

void mergeBoxes(uint into, uint from) {
  groupMin[into] = min(groupMin[into], groupMin[from]);
  groupMax[into] = max(groupMax[into], groupMax[from]);
}
WORKGROUP_REDUCE(reduceBoxes, mergeBoxes)

void main() {
  uint local = gl_LocalInvocationID.x;
  int width = textureSize(uPositionMass, 0).x;
  vec3 low = vec3(uintBitsToFloat(0x7f800000u)), high = -low;
  for (uint k = 0u; k < uBodiesPerInvocation; ++k) {
    uint i = shareElement(linearGroupId(), uBodiesPerInvocation, k);
    if (i >= uBodyCount) break;
    vec3 p = texelFetch(uPositionMass, texelOfBody(int(i), width), 0).xyz;
    low = min(low, p);
    high = max(high, p);
  }
  groupMin[local] = low;
  groupMax[local] = high;
  reduceBoxes();
  if (local < 3u) {
    atomicMin(bounds[local], orderedFromFloat(groupMin[0][local]));
    atomicMax(bounds[local + 3u], orderedFromFloat(groupMax[0][local]));
  }
}
