// A local essential tree's lists (tree_let.h): the slots each receiver's marks select, compacted on
// the GPU so that the marks (a word a node and a word a body of the segment, bit r for rank r)
// never leave it. Over a region of the marks (uCount words from word uFirst): each receiver's
// slots ascending, receiver after receiver, as the host packed them before (the same lists).
// A work group takes a block of WORKGROUP_SIZE x LIST_ITEMS slots, an invocation LIST_ITEMS
// consecutive ones, so a block's slots keep their order within each receiver.
// PASS 0: sets the marks at the uCount slots listed in `lists` from uListFirst to uValue (clears
// the nodes every rank holds; marks the IDs a walker holds): only the slots of the window
// [uWindowFirst, + uWindowSlots), at word uFirst + slot - uWindowFirst.
// PASS 1: counts each block's marks by receiver into counts[uCountsFirst + r * uBlocks + block].
// PASS 2: with those counts scanned (exclusive, in that order, on the host: so each receiver's
// place follows the lower receivers'), writes each marked slot, plus uSlotBase, at its place in
// `lists` (uSlotBase: the window's first slot, where the marks are a window's).
// Only integers are counted and moved: no bit of a walk depends on this order beyond the
// bodies' ranges staying contiguous (as before).
// Files before this one: workgroup.glsl, group_rows.glsl, body_layout.glsl, tree_common.glsl,
// tree_arrays.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform uint uFirst;   // the region's first word in the marks
uniform uint uCount;   // its words (PASS 0: the slots listed)
uniform uint uRanks;   // receivers: bits of a mark
uniform uint uBlocks;  // blocks of the region
uniform uint uCountsFirst;  // the region's first count
uniform uint uListFirst;    // PASS 0
uniform uint uValue;        // PASS 0
uniform uint uWindowFirst, uWindowSlots;  // PASS 0
uniform uint uSlotBase;                   // PASS 2

layout(std430, binding = B_LET_MARKS) buffer Marks { uint marks[]; };
layout(std430, binding = B_LET_CHUNKS) buffer Lists { uint lists[]; };
layout(std430, binding = B_LET_LISTS) buffer Counts { uint counts[]; };

shared uint sums[WORKGROUP_SIZE];

// The sum of `value` over this work group's invocations up to this one, included (Hillis and
// Steele's scan in shared memory). Every invocation calls it alike.
uint inclusiveSum(uint value) {
  uint t = gl_LocalInvocationID.x;
  barrier();  // the last call's reads are over
  sums[t] = value;
  barrier();
  for (uint step = 1u; step < uint(WORKGROUP_SIZE); step <<= 1u) {
    uint add = t >= step ? sums[t - step] : 0u;
    barrier();
    sums[t] += add;
    barrier();
  }
  return sums[t];
}

#if PASS == 0
void main() {
  uint i = linearGroupId() * WORKGROUP_SIZE + gl_LocalInvocationID.x;
  if (i >= uCount) return;
  uint slot = lists[uListFirst + i] - uWindowFirst;  // past the window: wraps beyond it
  if (slot < uWindowSlots) marks[uFirst + slot] = uValue;
}
#else
void main() {
  uint block = linearGroupId();
  uint first = (block * uint(WORKGROUP_SIZE) + gl_LocalInvocationID.x) * uint(LIST_ITEMS);
  uint words[LIST_ITEMS];
  for (uint k = 0u; k < uint(LIST_ITEMS); ++k)
    words[k] = block < uBlocks && first + k < uCount ? marks[uFirst + first + k] : 0u;
  for (uint r = 0u; r < uRanks; ++r) {
    uint mine = 0u;
    for (uint k = 0u; k < uint(LIST_ITEMS); ++k) mine += (words[k] >> r) & 1u;
    uint upTo = inclusiveSum(mine);
    if (block >= uBlocks) continue;
#if PASS == 1
    if (gl_LocalInvocationID.x == uint(WORKGROUP_SIZE) - 1u)
      counts[uCountsFirst + r * uBlocks + block] = upTo;
#else
    uint at = counts[uCountsFirst + r * uBlocks + block] + upTo - mine;
    for (uint k = 0u; k < uint(LIST_ITEMS); ++k)
      if (((words[k] >> r) & 1u) != 0u) lists[at++] = uSlotBase + first + k;
#endif
  }
}
#endif
