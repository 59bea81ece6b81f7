// A distributed run's tree accelerations between the acceleration image (body order) and a buffer
// in key order, where each rank's walked groups are one contiguous range: GATHER 1 copies this
// rank's range [uFirst, uLast) of sorted bodies out of the image, GATHER 0 stores every other
// body's, received from the other ranks, into it. Bits are only moved: x, y and z, 12 bytes a body,
// because the walk's w is always 0 (storeAccelerations in tree_walk.comp) and is stored back so.
// IDS 1 (the decomposed tree, tree_decomposed.h): each element is 16 bytes, the acceleration and
// the body's ID in w, because no rank knows the others' segments' bodies. GATHER 1 copies this
// walker's accelerations of its sorted bodies [uFirst, uLast), a part of its segment (its image
// holds sorted body k at texel order[k - uSegmentFirst], the walker's index of the body, whose ID
// is ids[that index]); GATHER 0 stores every element, its own too, at its ID.

// GROUP_SIZE, IDS and the bindings B_ORDER, B_SHARED, B_IDS, U_ACCELERATION come from
// engines/tree/tree_share.cpp and engines/tree/tree_decomposed.cpp.
layout(local_size_x = GROUP_SIZE) in;

layout(std430, binding = B_ORDER) readonly buffer Order { uint order[]; };  // body index of sorted body k
#if IDS
layout(std430, binding = B_IDS) readonly buffer Ids { uint ids[]; };  // a walker's IDs by its index
#endif
// sorted body k's acceleration at 3k (IDS: at 4k, its ID after it), as words: floats' bits only
// move, and no driver may flush a denormal (a small ID read as a float is one) on the way
layout(std430, binding = B_SHARED) buffer Shared { uint sorted[]; };
layout(rgba32f, binding = U_ACCELERATION) uniform image2DArray uAcceleration;

uniform int uFirst, uLast;  // this rank's sorted bodies (GATHER: those of this dispatch)
uniform int uSegmentFirst;  // IDS: the walker's first sorted body, at its image's texel 0
uniform int uBodyCount;

ivec3 texelOf(uint body) {
  int width = imageSize(uAcceleration).x;
  return ivec3(int(body) % width, int(body) / width, 0);
}

const uint STRIDE = IDS != 0 ? 4u : 3u;  // floats an element

// Where this rank's element k is in the image (GATHER), and whose acceleration element k is.
uint walkedTexel(int k) { return order[IDS != 0 ? k - uSegmentFirst : k]; }
uint bodyOf(int k) { return IDS != 0 ? sorted[STRIDE * uint(k) + 3u] : order[k]; }

void main() {
#if GATHER
  int k = uFirst + int(gl_GlobalInvocationID.x);
  if (k >= uLast) return;
  vec3 a = imageLoad(uAcceleration, texelOf(walkedTexel(k))).xyz;
  uint at = STRIDE * uint(k);
  sorted[at] = floatBitsToUint(a.x);
  sorted[at + 1u] = floatBitsToUint(a.y);
  sorted[at + 2u] = floatBitsToUint(a.z);
#if IDS
  sorted[at + 3u] = ids[walkedTexel(k)];
#endif
#else
  int k = int(gl_GlobalInvocationID.x);
  if (k >= uBodyCount || (IDS == 0 && k >= uFirst && k < uLast)) return;
  uint at = STRIDE * uint(k);
  vec3 a = uintBitsToFloat(uvec3(sorted[at], sorted[at + 1u], sorted[at + 2u]));
  imageStore(uAcceleration, texelOf(bodyOf(k)), vec4(a, 0.0));
#endif
}
