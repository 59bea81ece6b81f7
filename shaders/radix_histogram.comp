// One pass of the radix sort, step 1: how many keys of each block have each 8-bit digit at bit
// uShift. Counts from shared-memory integer atomics (their sum does not depend on the order).
// Files before this one: tree_common.glsl.

layout(local_size_x = SORT_THREADS) in;

uniform uint uCount;       // keys
uniform uint uBlockCount;  // blocks of SORT_BLOCK keys
uniform uint uShift;

layout(std430, binding = B_KEYS_IN) readonly buffer KeysIn { uvec2 keysIn[]; };
layout(std430, binding = B_BLOCK_COUNTS) writeonly buffer BlockCounts { uint blockCounts[]; };

shared uint digitCounts[RADIX];

void main() {
  uint block = linearGroupId();
  if (block >= uBlockCount) return;
  uint local = gl_LocalInvocationID.x;
  digitCounts[local] = 0u;
  barrier();
  for (uint k = 0u; k < SORT_ITEMS; ++k) {
    uint i = block * SORT_BLOCK + k * uint(SORT_THREADS) + local;
    if (i >= uCount) break;
    atomicAdd(digitCounts[digitOf(keysIn[i], uShift)], 1u);
  }
  barrier();
  blockCounts[local * uBlockCount + block] = digitCounts[local];
}
