// A decomposed run's whole state gathered from every rank's held bodies (engines/held_bodies.h).
// PACK 1: this rank's held body uFirst + i as record i of 9 words, its ID (ids[uFirst + i]) and
// then its position and mass and its velocity (its texels in the textures at units 0 and 1) as
// float bits. PACK 0: records stored at their IDs into the whole state's textures (images 0 and
// 1). Bits only move; padding texels are never written. Both run in pieces (records i < uCount).

layout(local_size_x = 256) in;

uniform uint uCount;
uniform uint uFirst;  // PACK 1: the first held body of the piece

layout(std430, binding = 0) buffer Records { uint records[]; };
#if PACK
layout(std430, binding = 1) readonly buffer Ids { uint ids[]; };
layout(binding = 0) uniform sampler2D uPositionMass;
layout(binding = 1) uniform sampler2D uVelocity;
#else
layout(rgba32f, binding = 0) writeonly uniform image2D uPositionMass;
layout(rgba32f, binding = 1) writeonly uniform image2D uVelocity;
#endif

const uint kWords = 9u;

ivec2 texelIn(uint index, int width) {
  return ivec2(int(index % uint(width)), int(index / uint(width)));
}

void main() {
  uint i = invocationInRows(gl_WorkGroupSize.x);
  if (i >= uCount) return;
  uint at = kWords * i;
#if PACK
  int width = textureSize(uPositionMass, 0).x;
  uint body = uFirst + i;
  uvec4 position = floatBitsToUint(texelFetch(uPositionMass, texelIn(body, width), 0));
  uvec4 velocity = floatBitsToUint(texelFetch(uVelocity, texelIn(body, width), 0));
  records[at] = ids[body];
  for (uint k = 0u; k < 4u; ++k) {
    records[at + 1u + k] = position[k];
    records[at + 5u + k] = velocity[k];
  }
#else
  uint id = records[at];
  uvec4 position, velocity;
  for (uint k = 0u; k < 4u; ++k) {
    position[k] = records[at + 1u + k];
    velocity[k] = records[at + 5u + k];
  }
  ivec2 texel = texelIn(id, imageSize(uPositionMass).x);
  imageStore(uPositionMass, texel, uintBitsToFloat(position));
  imageStore(uVelocity, texel, uintBitsToFloat(velocity));
#endif
}
