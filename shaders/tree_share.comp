// A distributed run's tree accelerations between the acceleration image (body order) and a buffer
// in key order, where each rank's walked groups are one contiguous range: GATHER 1 copies this
// rank's range [uFirst, uLast) of sorted bodies out of the image, GATHER 0 stores every other
// body's, received from the other ranks, into it. Bits are only moved.

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Order { uint order[]; };  // body index of sorted body k
layout(std430, binding = 1) buffer Shared { vec4 sorted[]; };         // acceleration of sorted body k
layout(rgba32f, binding = 0) uniform image2DArray uAcceleration;

uniform int uFirst, uLast;  // this rank's sorted bodies
uniform int uBodyCount;

ivec3 texelOf(uint body) {
  int width = imageSize(uAcceleration).x;
  return ivec3(int(body) % width, int(body) / width, 0);
}

void main() {
#if GATHER
  int k = uFirst + int(gl_GlobalInvocationID.x);
  if (k < uLast) sorted[k] = imageLoad(uAcceleration, texelOf(order[k]));
#else
  int k = int(gl_GlobalInvocationID.x);
  if (k < uBodyCount && (k < uFirst || k >= uLast)) imageStore(uAcceleration, texelOf(order[k]), sorted[k]);
#endif
}
