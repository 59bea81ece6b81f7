// One pass of the radix sort, step 1: how many keys of each block have each 8-bit digit at bit
// uShift (workgroup.glsl's histogram, a bin and an invocation a digit).
// Files before this one: workgroup.glsl, group_rows.glsl, body_layout.glsl, tree_common.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform uint uCount;       // keys
uniform uint uBlockCount;  // blocks of SORT_BLOCK keys
uniform uint uShift;

READ_ARRAY(B_KEYS_IN, KeysIn, uvec2, keysIn, usampler2D, .xy, keyAt)
layout(std430, binding = B_BLOCK_COUNTS) writeonly buffer BlockCounts { uint blockCounts[]; };

void main() {
  uint block = linearGroupId();
  if (block >= uBlockCount) return;
  clearHistogram();
  for (uint k = 0u; k < SORT_ITEMS; ++k) {
    uint i = sortItem(block, k);
    if (i >= uCount) break;
    histogramAdd(digitOf(keyAt(i), uShift));
  }
  finishHistogram();
  blockCounts[gl_LocalInvocationID.x * uBlockCount + block] = histogram[gl_LocalInvocationID.x];
}
