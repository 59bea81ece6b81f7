// A decomposed tree's LET chunks (tree_let.h): one work group a chunk of uChunkBodies of this
// walker's own bodies (sorted, at slots from uBodiesBelow): the least and greatest coordinates of
// its bodies, the walker's rank in lo.w (an integer), and in hi.w (ESTIMATES 1) the least |a| / G of its bodies
// (the coarse walk's, at a body's slot less uBodiesBelow) or 0. Minima and maxima are exact, so
// the reduction's order changes no bit.
// Files before this one: workgroup.glsl, group_rows.glsl, body_layout.glsl, tree_common.glsl,
// tree_arrays.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform uint uCount;        // the walker's own bodies
uniform uint uChunkBodies;
uniform uint uBodiesBelow;
uniform uint uRank;

READ_ARRAY(B_SORTED_BODIES, SortedBodies, vec4, sortedBodies, sampler2D, .xyzw, sortedBodyAt)
layout(std430, binding = B_VALUES_OUT) readonly buffer Estimates { float accelerationEstimate[]; };
// lo, hi as tree_let.comp's Chunk: float bits and the rank, integers
layout(std430, binding = B_LET_CHUNKS) writeonly buffer Chunks { uvec4 chunkBounds[]; };

shared vec4 lows[WORKGROUP_SIZE], highs[WORKGROUP_SIZE];

void main() {
  uint chunk = linearGroupId(), local = gl_LocalInvocationID.x;
  uint first = chunk * uChunkBodies, last = min(first + uChunkBodies, uCount);
  float infinity = uintBitsToFloat(0x7f800000u);
  vec4 low = vec4(infinity), high = vec4(-infinity, -infinity, -infinity, infinity);
  for (uint k = first + local; k < last; k += uint(WORKGROUP_SIZE)) {
    vec3 p = sortedBodyAt(uBodiesBelow + k).xyz;
    low.xyz = min(low.xyz, p);
    high.xyz = max(high.xyz, p);
    if (ESTIMATES != 0) high.w = min(high.w, accelerationEstimate[k]);
  }
  lows[local] = low;
  highs[local] = high;
  barrier();
  for (uint stride = uint(WORKGROUP_SIZE) / 2u; stride > 0u; stride /= 2u) {
    if (local < stride) {
      lows[local].xyz = min(lows[local].xyz, lows[local + stride].xyz);
      highs[local].xyz = max(highs[local].xyz, highs[local + stride].xyz);
      highs[local].w = min(highs[local].w, highs[local + stride].w);
    }
    barrier();
  }
  if (local != 0u || first >= uCount) return;
  chunkBounds[2u * chunk] = uvec4(floatBitsToUint(lows[0].xyz), uRank);
  chunkBounds[2u * chunk + 1u] = floatBitsToUint(vec4(highs[0].xyz, ESTIMATES != 0 ? highs[0].w : 0.0));
}
