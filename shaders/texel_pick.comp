// Texels of chosen bodies, for a decomposed run's held bodies (engines/held_bodies.h): picked[k]
// is the texel of body indices[k] (RANGE 0) or uFirst + k (RANGE 1) of uTexels, a texture in the
// state's layout (body i at texel (i % width, i / width)), or layer 0 of one (ARRAY 1). Bits only
// move. Records k < uCount.

layout(local_size_x = 256) in;

uniform uint uCount;
uniform uint uFirst;  // RANGE 1: the first body

#if !RANGE
layout(std430, binding = 0) readonly buffer Indices { uint indices[]; };
#endif
layout(std430, binding = 1) writeonly buffer Picked { vec4 picked[]; };
#if ARRAY
layout(binding = 0) uniform sampler2DArray uTexels;
#else
layout(binding = 0) uniform sampler2D uTexels;
#endif

void main() {
  uint k = invocationInRows(gl_WorkGroupSize.x);
  if (k >= uCount) return;
#if RANGE
  uint body = uFirst + k;
#else
  uint body = indices[k];
#endif
  int width = textureSize(uTexels, 0).x;
  ivec2 texel = ivec2(int(body % uint(width)), int(body / uint(width)));
#if ARRAY
  picked[k] = texelFetch(uTexels, ivec3(texel, 0), 0);
#else
  picked[k] = texelFetch(uTexels, texel, 0);
#endif
}
