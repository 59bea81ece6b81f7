// Where a kernel finds a node's records and a body (docs/decomposed-tree-design.md, section 5).
// References stay global everywhere (the stack, ranges, overlaps, counts); only these accessors
// map them. A decomposed tree's walker holds the nodes and bodies of its segment of the sorted
// positions, [uSlotFirst, uSlotFirst + uSlotCount): node i's records at slot i - uSlotFirst, body x
// at slot x - uSlotFirst + uBodiesBelow (the other ranks' bodies it received lie before and after
// its own, in position order, so a range it reads is contiguous); and what it received of the
// other ranks' nodes and bodies through an open-addressing hash of global references (body x as
// LEAF_BIT | x) to slots: entries (reference + 1, slot), 0 a free entry, linear probing. One GPU
// holds every position: the slots are the indices (SLOT_MAP 0: no hash, nothing to compare; the
// mapping compiled in cost the H200's walk 4% at 1M bodies, round 33). A reference found nowhere
// counts a miss in slotMisses (read back after the walk: a hole in what a walker received is never
// silent) and reads slot 0; so does a body range received in part (rangeSlot).
// Defines: SLOT_MAP (0: one GPU, 1: a walker). Files before this one: tree_common.glsl.

uniform uint uSlotFirst;
uniform uint uSlotCount;
uniform uint uBodiesBelow;

#if SLOT_MAP
uniform uint uHashMask;  // the hash's entries - 1 (a power of two)

layout(std430, binding = B_SLOT_HASH) buffer SlotHash {
  uint slotMisses;
  uint slotHashUnused;
  uvec2 slotHash[];
};

uint hashedSlot(uint reference) {
  uint entry = (reference * 0x9e3779b1u) & uHashMask;
  for (uint probes = 0u; probes <= uHashMask; ++probes) {
    uvec2 found = slotHash[entry];
    if (found.x == reference + 1u) return found.y;
    if (found.x == 0u) break;
    entry = (entry + 1u) & uHashMask;
  }
  atomicAdd(slotMisses, 1u);
  return 0u;
}

uint nodeSlot(uint node) {
  uint slot = node - uSlotFirst;
  return slot < uSlotCount ? slot : hashedSlot(node);
}

uint bodySlot(uint position) {
  uint slot = position - uSlotFirst;
  return slot < uSlotCount ? slot + uBodiesBelow : hashedSlot(LEAF_BIT | position);
}

// The first slot of the body range [first, first + count), which a walk reads from consecutive
// slots. Where the range reaches outside the segment, its last body is looked up too: a slot other
// than the first's + count - 1 (a range received in part) counts a miss.
uint rangeSlot(uint first, uint count) {
  uint slot = bodySlot(first), last = first + count - 1u;
  bool own = first - uSlotFirst < uSlotCount && last - uSlotFirst < uSlotCount;
  if (!own && bodySlot(last) != slot + count - 1u) atomicAdd(slotMisses, 1u);
  return slot;
}
#else
uint nodeSlot(uint node) { return node; }
uint bodySlot(uint position) { return position; }
uint rangeSlot(uint first, uint count) { return first; }
#endif
