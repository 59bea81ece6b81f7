// Runs the work-group primitives of workgroup.glsl on known inputs, for their test
// (tests/gl/workgroup_test.cpp): work group g takes elements [g WORKGROUP_SIZE, (g + 1)
// WORKGROUP_SIZE) of the input, those past uCount counting as absent. The scan takes element
// g WORKGROUP_SIZE + workgroupRank() in each invocation, the reduction and the histogram element
// g WORKGROUP_SIZE + gl_LocalInvocationID.x. Files before this one: workgroup.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform uint uCount;

layout(std430, binding = 0) readonly buffer Values { uint values[]; };
layout(std430, binding = 1) readonly buffer Floats { float floats[]; };
layout(std430, binding = 2) writeonly buffer Scanned { uvec2 scanned[]; };  // exclusive sums of (value, 1)
// Per group: the scan's totals; the reduction's float sum (as bits) and largest value.
layout(std430, binding = 3) writeonly buffer Totals { uvec4 totals[]; };
layout(std430, binding = 4) writeonly buffer Counts { uint counts[]; };  // per group, HISTOGRAM_BINS bins

#if SUBGROUP_SCAN
shared uvec2 scanBuffer[1][WORKGROUP_SIZE];
#else
shared uvec2 scanBuffer[2][WORKGROUP_SIZE];
#endif
shared float sums[WORKGROUP_SIZE];
shared uint largest[WORKGROUP_SIZE];

WORKGROUP_SCAN(exclusiveScan, uvec2, scanBuffer)

void combine(uint into, uint from) {
  sums[into] += sums[from];
  largest[into] = max(largest[into], largest[from]);
}
WORKGROUP_REDUCE(reduceGroup, combine)

void main() {
  uint first = gl_WorkGroupID.x * uint(WORKGROUP_SIZE);
  uint ranked = first + workgroupRank();
  bool present = ranked < uCount;
  uvec2 total;
  uvec2 before = exclusiveScan(present ? uvec2(values[ranked], 1u) : uvec2(0u), total);
  if (present) scanned[ranked] = before;

  uint mine = first + gl_LocalInvocationID.x;
  present = mine < uCount;
  sums[gl_LocalInvocationID.x] = present ? floats[mine] : 0.0;
  largest[gl_LocalInvocationID.x] = present ? values[mine] : 0u;
  reduceGroup();
  if (gl_LocalInvocationID.x == 0u)
    totals[gl_WorkGroupID.x] = uvec4(total, floatBitsToUint(sums[0]), largest[0]);

  clearHistogram();
  if (present) histogramAdd(values[mine] % uint(HISTOGRAM_BINS));
  finishHistogram();
  for (uint bin = gl_LocalInvocationID.x; bin < uint(HISTOGRAM_BINS); bin += uint(WORKGROUP_SIZE))
    counts[gl_WorkGroupID.x * uint(HISTOGRAM_BINS) + bin] = histogram[bin];
}
