// A decomposed tree's local essential tree (docs/decomposed-tree-design.md, section 6): which of
// this sender's nodes and bodies each other rank's walk may read. One work group a chunk of a
// receiver's groups (a run of them, with the float box of their bodies): it walks the tree from
// the root, as every group of the chunk could, and marks, bit `receiver` set by atomicOr, every
// record and body that any of those walks could read:
//   a straddling node (its range crosses a segment start): every rank holds its records; it is
//     always followed (a group may overlap it), its children pushed where it has more than
//     uLeafSize bodies, and this rank's part of its range marked where it has at most
//     max(uLeafSize, uSmallCell) (a group may read the whole range);
//   a node of this rank's segment: marked (both records); its range marked where it has at most
//     uSmallCell bodies, or where it may be opened and has at most uLeafSize; its children pushed
//     where it may be opened and has more;
//   a body leaf of this rank's segment: marked;
//   anything of another rank's segment: left (that rank marks what lies below it).
// "May be opened" is the walk's geometric test made conservative, in double: the node is opened
// where the chunk's box comes within its opening radius grown by 2^-16, plus 2^-16 of the distance
// from its centre of mass to the box's centre and of the box's half-diagonal. A group's box lies in
// its chunk's, and the margin covers the roundings of the walk's float test about its anchor (a few
// ulps, 2^-24 each, of those lengths), so whatever a group's walk opens, this walk opens too, and by
// induction from the root it reaches every node the group tests. Under OPENING 1 a node is also
// opened where the walk's relative criterion (tree_walk.comp's opensRelative) holds at the least
// distance a group could measure, the chunk's less that margin, against 0.99998 of the least |a|
// of the chunk's bodies (hi.w): a group's |a| is no less, and its float criterion rounds by a few
// ulps, under 2^-16. Marks are a set: the order the invocations take nodes in changes nothing.
// Nodes are read through tree_slots.glsl's slots (SLOT_MAP 1): this rank's segment, the straddling
// nodes and the frontier, all of which every node reached lies in.
// Defines: LET_STACK (entries of the shared stack; a walk that would outgrow it sets
// letOverflow, read back by the host), OPENING and EXPANSION_ORDER (the walk's).
// Files before this one: workgroup.glsl, group_rows.glsl, body_layout.glsl, tree_common.glsl,
// tree_arrays.glsl,
// tree_slots.glsl.

#define THREADS WORKGROUP_SIZE
#define MAX_RANKS 32

layout(local_size_x = THREADS) in;

uniform uint uBodyCount;
uniform uint uRank;   // this sender
uniform uint uRanks;
uniform uint uStarts[MAX_RANKS + 1];  // segment starts, uRanks + 1 of them, the last N
uniform uint uChunks;
uniform uint uLeafSize;
uniform uint uSmallCell;
uniform float uOpeningScale2;  // the walk's (tree_walk.comp)
uniform float uTheta2;         // the walk's, OPENING 1
uniform float uAccuracy;       // the walk's, OPENING 1

READ_ARRAY(B_NODE_TEST, NodeTest, uvec4, nodeTest, usampler2D, .xyzw, nodeTestAt)
// A chunk: the least and greatest coordinates of its bodies, as float bits; lo.w holds the
// receiving rank, hi.w (OPENING 1) the bits of the least |a| / G of its bodies. Integers, so that
// no driver may flush a small rank, read as a float, to zero.
struct Chunk {
  uvec4 lo, hi;
};
layout(std430, binding = B_LET_CHUNKS) readonly buffer Chunks { Chunk chunks[]; };
// A word of marks (bit r: rank r's walk may read it) for each node of this segment, at its slot,
// then for each of its bodies, at uSlotCount + its slot.
layout(std430, binding = B_LET_MARKS) buffer Marks {
  uint letOverflow;
  uint letUnused;
  uint marks[];
};

const uint NO_NODE = 0xffffffffu;
const double MARGIN = 1.0 / 65536.0;

shared uint stack[LET_STACK];
shared uint stackTop;

dvec3 boxLo = dvec3(0.0), boxHi = dvec3(0.0);
double leastAcceleration = 0.0;
uint receiverBit = 0u;

// The segment holding sorted position x (the last of those starting at or before it).
uint segmentOf(uint x) {
  uint segment = 0u;
  for (uint r = 1u; r < uRanks; ++r)
    if (uStarts[r] <= x) segment = r;
  return segment;
}

void markBodies(uint first, uint last) {
  uint from = max(first, uSlotFirst), to = min(last + 1u, uSlotFirst + uSlotCount);
  for (uint x = from; x < to; ++x) atomicOr(marks[uSlotCount + x - uSlotFirst], receiverBit);
}

void push(uvec2 children) {
  uint at = atomicAdd(stackTop, 2u);
  if (at + 2u > uint(LET_STACK)) {
    atomicMax(letOverflow, 1u);
    return;
  }
  stack[at] = children.x;
  stack[at + 1u] = children.y;
}

// OPENING 1: whether the error a node of mass `mass` and opening radius^2 `r2` leaves at distance
// `d` exceeds the criterion's share of the chunk's least |a| (tree_walk.comp's opensRelative).
bool opensRelative(float mass, float r2, double d) {
  if (d <= 0.0) return true;
  double d2 = d * d, q = double(uTheta2) * double(r2) / d2;
  double error = (double(mass) / d2) * (EXPANSION_ORDER >= 2 ? q * sqrt(q) : q);
  return error > 0.99998 * double(uAccuracy) * leastAcceleration;
}

// Whether some group of the chunk may open a node of centre of mass `com`, mass `mass` and
// opening radius^2 `r2` (the walk's tests, conservative).
bool mayOpen(vec3 com, float mass, float r2) {
  dvec3 c = dvec3(com);
  dvec3 outside = max(max(boxLo - c, c - boxHi), dvec3(0.0));
  double radius = sqrt(double(r2) * double(uOpeningScale2)), distance = length(outside);
  double room = MARGIN * (length(c - (boxLo + boxHi) * 0.5) + length(boxHi - boxLo) * 0.5);
  return distance <= radius * (1.0 + MARGIN) + room ||
         (OPENING == 1 && opensRelative(mass, r2, distance - room));
}

void visit(uint ref) {
  if ((ref & LEAF_BIT) != 0u) {
    markBodies(ref & ~LEAF_BIT, ref & ~LEAF_BIT);
    return;
  }
  uint slot = nodeSlot(ref);
  vec4 comMass = uintBitsToFloat(nodeTestAt(nodeVec(slot, NODE_TEST_COM)));
  uvec4 links = nodeTestAt(nodeVec(slot, NODE_TEST_LINKS));
  uvec4 range = nodeRange(ref, links.y, links.z);
  uint count = range.y - range.x + 1u, segment = segmentOf(range.x);
  if (segment != segmentOf(range.y)) {
    if (count <= max(uLeafSize, uSmallCell)) markBodies(range.x, range.y);
    if (count > uLeafSize) push(range.zw);
    return;
  }
  if (segment != uRank) return;
  atomicOr(marks[slot], receiverBit);
  bool opened = mayOpen(comMass.xyz, comMass.w, uintBitsToFloat(links.x));
  if (count <= uSmallCell || (opened && count <= uLeafSize)) markBodies(range.x, range.y);
  if (opened && count > uLeafSize) push(range.zw);
}

void main() {
  uint chunk = linearGroupId();
  if (chunk >= uChunks) return;
  uint local = gl_LocalInvocationID.x;
  boxLo = dvec3(uintBitsToFloat(chunks[chunk].lo.xyz));
  boxHi = dvec3(uintBitsToFloat(chunks[chunk].hi.xyz));
  leastAcceleration = double(uintBitsToFloat(chunks[chunk].hi.w));
  receiverBit = 1u << chunks[chunk].lo.w;
  if (local == 0u) {
    stack[0] = uBodyCount == 1u ? LEAF_BIT : 0u;  // the root
    stackTop = 1u;
  }
  barrier();
  for (;;) {
    uint height = stackTop;  // past LET_STACK once a push found no room: letOverflow is set
    if (height == 0u || height > uint(LET_STACK)) break;
    // No more nodes than leave room for all their children: the stack holds about a row a level
    // and never fills while the tree is shallower than LET_STACK.
    uint taken = min(min(height, uint(THREADS)), max(uint(LET_STACK) - height, 1u));
    uint ref = local < taken ? stack[height - taken + local] : NO_NODE;
    barrier();  // every invocation has read the top and its node
    if (local == 0u) stackTop = height - taken;
    barrier();
    if (ref != NO_NODE) visit(ref);
    barrier();  // every push has landed
  }
}
