// One pass of the radix sort, step 2: work group d (or, with SCAN_ONE_GROUP, invocation d of the
// one work group) turns row d of the block counts (how many keys of digit d each block holds) into
// exclusive prefix sums in place, and writes the row's total.
// The scatter step adds the totals of the smaller digits. Files before this one: tree_common.glsl.

layout(local_size_x = 256) in;

uniform uint uBlockCount;

layout(std430, binding = B_BLOCK_COUNTS) buffer BlockCounts { uint blockCounts[]; };
layout(std430, binding = B_DIGIT_TOTALS) writeonly buffer DigitTotals { uint digitTotals[]; };

#if SCAN_ONE_GROUP
// Few blocks (small N): one work group in which invocation d scans row d alone. 256 work groups of
// a barrier a step cost more than the rest of the sort together on llvmpipe (15 of 17 ms a sort
// at N = 64); on a GPU the row is a few loads either way.
void main() {
  uint digit = gl_LocalInvocationID.x;
  uint row = digit * uBlockCount, running = 0u;
  for (uint b = 0u; b < uBlockCount; ++b) {
    uint count = blockCounts[row + b];
    blockCounts[row + b] = running;
    running += count;
  }
  digitTotals[digit] = running;
}
#else
shared uint partial[2][256];

void main() {
  uint digit = gl_WorkGroupID.x;
  uint local = gl_LocalInvocationID.x;
  uint perInvocation = (uBlockCount + 255u) / 256u;
  uint begin = min(local * perInvocation, uBlockCount);
  uint end = min(begin + perInvocation, uBlockCount);
  uint row = digit * uBlockCount;
  uint sum = 0u;
  for (uint b = begin; b < end; ++b) sum += blockCounts[row + b];
  // Inclusive scan of the 256 invocation sums (Hillis-Steele, two buffers, a barrier a step).
  partial[0][local] = sum;
  barrier();
  uint source = 0u;
  for (uint offset = 1u; offset < 256u; offset <<= 1) {
    uint value = partial[source][local];
    if (local >= offset) value += partial[source][local - offset];
    partial[1u - source][local] = value;
    source = 1u - source;
    barrier();
  }
  uint running = partial[source][local] - sum;
  for (uint b = begin; b < end; ++b) {
    uint count = blockCounts[row + b];
    blockCounts[row + b] = running;
    running += count;
  }
  if (local == 255u) digitTotals[digit] = partial[source][255];
}
#endif
