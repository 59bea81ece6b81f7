// One pass of the radix sort, step 2: work group d (or, with SCAN_ONE_GROUP, invocation d of the
// one work group) turns row d of the block counts (how many keys of digit d each block holds) into
// exclusive prefix sums in place, and writes the row's total.
// The scatter step adds the totals of the smaller digits.
// Files before this one: workgroup.glsl, group_rows.glsl, body_layout.glsl, tree_common.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform uint uBlockCount;

layout(std430, binding = B_BLOCK_COUNTS) buffer BlockCounts { uint blockCounts[]; };
layout(std430, binding = B_DIGIT_TOTALS) writeonly buffer DigitTotals { uint digitTotals[]; };

// Counts [begin, end) of the row starting at `row` made exclusive prefix sums that start at
// `running`, in place; returns the sum past the last.
uint scanRowInPlace(uint row, uint begin, uint end, uint running) {
  for (uint b = begin; b < end; ++b) {
    uint count = blockCounts[row + b];
    blockCounts[row + b] = running;
    running += count;
  }
  return running;
}

#if SCAN_ONE_GROUP
// Few blocks (small N): one work group in which invocation d scans row d alone. A work group a
// digit costs a barrier a step, which on llvmpipe outweighs the rest of the sort at small N; on a
// GPU the row is a few loads either way.
void main() {
  uint digit = gl_LocalInvocationID.x;
  digitTotals[digit] = scanRowInPlace(digit * uBlockCount, 0u, uBlockCount, 0u);
}
#else
shared uint partial[2][WORKGROUP_SIZE];
WORKGROUP_SCAN(exclusiveScan, uint, partial)

// Each invocation sums its share of the row, the shares are scanned, then each invocation scans
// its share from where the shares before it end.
void main() {
  uint digit = gl_WorkGroupID.x;
  uint local = gl_LocalInvocationID.x;
  uint perInvocation = (uBlockCount + uint(WORKGROUP_SIZE) - 1u) / uint(WORKGROUP_SIZE);
  uint begin = min(local * perInvocation, uBlockCount);
  uint end = min(begin + perInvocation, uBlockCount);
  uint row = digit * uBlockCount;
  uint share = 0u;
  for (uint b = begin; b < end; ++b) share += blockCounts[row + b];
  uint total;
  scanRowInPlace(row, begin, end, exclusiveScan(share, total));
  if (local == 0u) digitTotals[digit] = total;
}
#endif
