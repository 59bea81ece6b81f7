// Reference accelerations for the force-error report (src/diagnostics/force_error.h): for each
// sampled body i, sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2) in double precision, in
// one order however the bodies j are cut into dispatches, pieces and textures: blocks of
// REFERENCE_BLOCK bodies (by index, from the first of the texture, which is a block's first), each
// summed in index order from 0, and the blocks' sums added in block order. Two passes (COMBINE):
// - 0: each (sampled body, block) of the blocks from uBlockBegin (the work groups' y) sums its
//   block into blockSums, row y: every SM busy however few bodies are judged;
// - 1: each sampled body adds the uBlockCount rows of blockSums in order to `reference`, after what
//   earlier dispatches left there where uContinue.
// The float32 positions are taken as exact; j == i and coincident bodies add exactly 0, as in the
// engines. r_i is body i's position in uPositionMass, the acceleration judged its texel of
// uAcceleration (written by pass 1); with GIVEN_POSITIONS 1, r_i is samplePositions[i] and nothing
// is judged (the bodies j then come in pieces, each a texture of its own). Files before this one:
// body_layout.glsl.

layout(local_size_x = 256) in;

uniform sampler2D uPositionMass;
#if !GIVEN_POSITIONS
uniform sampler2DArray uAcceleration;  // the accelerations to judge, layer 0
#endif
uniform uint uSampleCount;
uniform uint uBodyCount;   // bodies j in uPositionMass
uniform uint uBlockBegin;  // pass 0: the dispatch's first block
uniform uint uBlockCount;  // pass 1: the blocks of the dispatch
uniform uint uContinue;    // pass 1: 1 adds to what earlier dispatches left
uniform double uSoftening2;

#if GIVEN_POSITIONS
layout(std430, binding = 0) readonly buffer Samples { vec4 samplePositions[]; };
#else
layout(std430, binding = 0) readonly buffer Samples { uint samples[]; };
layout(std430, binding = 2) writeonly buffer Judged { vec4 judged[]; };  // the acceleration to judge
#endif
layout(std430, binding = 1) buffer Reference { dvec4 reference[]; };  // xyz: the sum so far
layout(std430, binding = 3) buffer BlockSums { dvec4 blockSums[]; };  // [block row][sample]

#if COMBINE

void main() {
  uint s = gl_GlobalInvocationID.x;
  if (s >= uSampleCount) return;
  // precise: no contraction the compiler might choose differently in the variants.
  precise dvec3 sum = uContinue == 0u ? dvec3(0.0) : reference[s].xyz;
  for (uint block = 0u; block < uBlockCount; ++block) sum += blockSums[block * uSampleCount + s].xyz;
  reference[s] = dvec4(sum, 0.0);
#if !GIVEN_POSITIONS
  int width = textureSize(uPositionMass, 0).x;
  judged[s] = texelFetch(uAcceleration, ivec3(texelOfBody(int(samples[s]), width), 0), 0);
#endif
}

#else

shared vec4 tile[256];

void main() {
  uint s = gl_WorkGroupID.x * 256u + gl_LocalInvocationID.x;
  uint local = gl_LocalInvocationID.x;
  int width = textureSize(uPositionMass, 0).x;
  uint last = uSampleCount - 1u;
#if GIVEN_POSITIONS
  dvec3 ri = dvec3(samplePositions[min(s, last)].xyz);
#else
  dvec3 ri = dvec3(texelFetch(uPositionMass, texelOfBody(int(samples[min(s, last)]), width), 0).xyz);
#endif
  uint begin = (uBlockBegin + gl_WorkGroupID.y) * uint(REFERENCE_BLOCK);
  uint end = min(begin + uint(REFERENCE_BLOCK), uBodyCount);
  precise dvec3 sum = dvec3(0.0);
  for (uint first = begin; first < end; first += 256u) {
    uint j = first + local;
    tile[local] = j < end ? texelFetch(uPositionMass, texelOfBody(int(j), width), 0) : vec4(0.0);
    barrier();
    uint count = min(256u, end - first);
    for (uint m = 0u; m < count; ++m) {
      dvec3 d = dvec3(tile[m].xyz) - ri;
      double r2 = dot(d, d) + uSoftening2;
      if (dot(d, d) > 0.0) {
        // GLSL promises double built-ins only single precision: two Newton steps make it double.
        double inverseR = inversesqrt(r2);
        inverseR *= 1.5 - 0.5 * r2 * inverseR * inverseR;
        inverseR *= 1.5 - 0.5 * r2 * inverseR * inverseR;
        sum += double(tile[m].w) * (inverseR * inverseR * inverseR) * d;
      }
    }
    barrier();
  }
  if (s < uSampleCount) blockSums[gl_WorkGroupID.y * uSampleCount + s] = dvec4(sum, 0.0);
}

#endif
