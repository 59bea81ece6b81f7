// A distributed run's tree accelerations between the acceleration image (body order) and a buffer
// in key order, where each rank's walked groups are one contiguous range: GATHER 1 copies this
// rank's range [uFirst, uLast) of sorted bodies out of the image, GATHER 0 stores every other
// body's, received from the other ranks, into it. Bits are only moved: x, y and z, 12 bytes a body,
// because the walk's w is always 0 (storeAccelerations in tree_walk.comp) and is stored back so.

// GROUP_SIZE and the bindings B_ORDER, B_SHARED, U_ACCELERATION come from
// engines/tree/tree_share.cpp.
layout(local_size_x = GROUP_SIZE) in;

layout(std430, binding = B_ORDER) readonly buffer Order { uint order[]; };  // body index of sorted body k
// sorted body k's acceleration at 3k, as words: floats' bits only move, and no driver may flush a
// denormal on the way
layout(std430, binding = B_SHARED) buffer Shared { uint sorted[]; };
layout(rgba32f, binding = U_ACCELERATION) uniform image2DArray uAcceleration;

uniform int uFirst, uLast;  // this rank's sorted bodies (GATHER: those of this dispatch)
uniform int uBodyCount;

ivec3 texelOf(uint body) {
  int width = imageSize(uAcceleration).x;
  return ivec3(int(body) % width, int(body) / width, 0);
}

const uint STRIDE = 3u;  // floats an element

void main() {
#if GATHER
  int k = uFirst + int(invocationInRows(gl_WorkGroupSize.x));
  if (k >= uLast) return;
  vec3 a = imageLoad(uAcceleration, texelOf(order[k])).xyz;
  uint at = STRIDE * uint(k);
  sorted[at] = floatBitsToUint(a.x);
  sorted[at + 1u] = floatBitsToUint(a.y);
  sorted[at + 2u] = floatBitsToUint(a.z);
#else
  int k = int(invocationInRows(gl_WorkGroupSize.x));
  if (k >= uBodyCount || (k >= uFirst && k < uLast)) return;
  uint at = STRIDE * uint(k);
  vec3 a = uintBitsToFloat(uvec3(sorted[at], sorted[at + 1u], sorted[at + 2u]));
  imageStore(uAcceleration, texelOf(order[k]), vec4(a, 0.0));
#endif
}
