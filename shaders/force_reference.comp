// Reference accelerations for the force-error report (src/diagnostics/force_error.h): for each
// sampled body i, sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2) in double precision over
// the bodies j of [uChunkBegin, uChunkEnd), added to what earlier chunks left in `reference`
// where uContinue (chunks keep each dispatch short; they run in order, so the sum is the same
// every time, however the bodies j are cut into chunks and textures). The float32 positions are
// taken as exact; j == i and coincident bodies add exactly 0, as in the engines. r_i is body i's
// position in uPositionMass, the acceleration judged its texel of uAcceleration; with
// GIVEN_POSITIONS 1, r_i is samplePositions[i] and nothing is judged (the bodies j then come in
// pieces, each a texture of its own). Files before this one: body_layout.glsl.

layout(local_size_x = 256) in;

uniform sampler2D uPositionMass;
#if !GIVEN_POSITIONS
uniform sampler2DArray uAcceleration;  // the accelerations to judge, layer 0
#endif
uniform uint uSampleCount;
uniform uint uChunkBegin;
uniform uint uChunkEnd;
uniform uint uContinue;  // 1: add to what earlier chunks left
uniform double uSoftening2;

#if GIVEN_POSITIONS
layout(std430, binding = 0) readonly buffer Samples { vec4 samplePositions[]; };
#else
layout(std430, binding = 0) readonly buffer Samples { uint samples[]; };
layout(std430, binding = 2) writeonly buffer Judged { vec4 judged[]; };  // the acceleration to judge
#endif
layout(std430, binding = 1) buffer Reference { dvec4 reference[]; };  // xyz: sum so far

shared vec4 tile[256];

void main() {
  uint s = gl_WorkGroupID.x * 256u + gl_LocalInvocationID.x;
  uint local = gl_LocalInvocationID.x;
  int width = textureSize(uPositionMass, 0).x;
  uint last = uSampleCount - 1u;
#if GIVEN_POSITIONS
  dvec3 ri = dvec3(samplePositions[min(s, last)].xyz);
#else
  ivec2 texel = texelOfBody(int(samples[min(s, last)]), width);
  dvec3 ri = dvec3(texelFetch(uPositionMass, texel, 0).xyz);
#endif
  // precise: no contraction the compiler might choose differently in the two variants.
  precise dvec3 sum = uContinue == 0u ? dvec3(0.0) : reference[min(s, last)].xyz;
  for (uint first = uChunkBegin; first < uChunkEnd; first += 256u) {
    uint j = first + local;
    tile[local] = j < uChunkEnd ? texelFetch(uPositionMass, texelOfBody(int(j), width), 0) : vec4(0.0);
    barrier();
    uint count = min(256u, uChunkEnd - first);
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
  if (s >= uSampleCount) return;
  reference[s] = dvec4(sum, 0.0);
#if !GIVEN_POSITIONS
  judged[s] = texelFetch(uAcceleration, ivec3(texel, 0), 0);
#endif
}
