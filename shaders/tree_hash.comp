// A walker's slot hash (tree_slots.glsl) filled on the GPU: entry i of `entries` (a global
// reference and its slot) goes to the first free place of its probe sequence, claimed by an atomic
// compare-and-swap, so the host neither probes nor uploads the table. The places depend on the
// order the invocations run in, what a lookup finds does not: references are unique. The table
// (uMask + 1 entries, cleared before) starts after the misses' and an unused word.
// Files before this one: workgroup.glsl, body_layout.glsl, tree_common.glsl, tree_arrays.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform uint uCount;
uniform uint uMask;

layout(std430, binding = B_SLOT_HASH) buffer SlotHash { uint hashWords[]; };
layout(std430, binding = B_LET_CHUNKS) readonly buffer Entries { uvec2 entries[]; };

void main() {
  uint i = linearGroupId() * WORKGROUP_SIZE + gl_LocalInvocationID.x;
  if (i >= uCount) return;
  uvec2 entry = entries[i];
  uint at = (entry.x * 0x9e3779b1u) & uMask;
  while (atomicCompSwap(hashWords[2u + 2u * at], 0u, entry.x + 1u) != 0u) at = (at + 1u) & uMask;
  hashWords[3u + 2u * at] = entry.y;
}
