// The tree walk: one work group per group of GROUP_SIZE consecutive bodies in key order (close in
// space), BODIES_PER_THREAD bodies per invocation, all walking the tree together and sharing one
// interaction list (Bonsai's scheme through shared memory and barrier(); subgroup arithmetic only
// for the prefix sums, where the GPU has it).
//
// Each round the group takes up to THREADS nodes from a stack in shared memory, one per
// invocation, and tests each against the group's bounding box. A node is opened when the box
// comes within its opening radius of its centre of mass (the distance from the box, so the test is
// safe for every body of the group) or when its body range overlaps the group's (so no body ever
// meets a cell that holds itself, for any theta). Then:
//   accepted               -> its multipole goes to the cell list (body by body if it holds at
//                             most uSmallCell bodies: exact, and cheaper);
//   opened, <= uLeafSize   -> its bodies (a contiguous range) go to the body list;
//   opened, larger         -> its two children go on the stack.
// Where the lists and the stack take each item follows from prefix sums over the round, so the
// lists, and with them every float sum, come out in the same order every run. When a list holds a
// tile, all invocations load it into shared memory together and every invocation adds the whole
// tile to its body: the inner loops are the direct kernel's (shaders/force.comp).
//
// The relative opening (OPENING 1, GADGET's criterion): a node the geometric test accepts is
// opened still where G M b^3 / d^5 > uAccuracy |a| for the least |a| of the group's bodies (b the
// node's size, theta x its opening radius; d the distance from the group's box to its centre of
// mass; b^2 / d^4 with monopoles): the error a cell leaves, ~G M b^p / d^(p+2), kept a fraction of
// each body's own acceleration, so that bodies where the field is weak (a sphere's centre) open
// more and the rest less than one theta for all. |a| comes from a coarse walk of the same tree just
// before (ESTIMATE 1: monopoles, the opening radius scaled by uOpeningScale2), so that the
// criterion depends on the state alone, not on earlier evaluations.
//
// Interactions use absolute positions, as the direct kernel does (the difference of two nearby
// floats is exact), and a cell's centre of mass as c_hi + c_lo: d = (c_hi - r_i) + c_lo, so a
// cluster far from the origin keeps the precision of direct summation, also where a group
// straddles two clusters far apart. The opening test takes the group's box and the c_hi relative
// to the group's first body, the "anchor"; a node's opening radius has room for the c_lo it leaves
// out, so the test reads one 32-byte record a node.
//
// The stack: the walk leaves up to THREADS pending nodes on it per tree level it descends, so a
// deep tree (a Plummer core at 16M bodies) needs thousands of entries, while shared memory is what
// sets how many work groups an SM runs. So only its top lives in shared memory, a ring of
// STACK_SIZE entries; when a round could overflow the ring, its oldest row of THREADS entries
// moves to GPU memory, into a slot of a pool that the group takes the first time (an integer
// compare-and-swap; a group that finds every slot taken waits for one, which a running group gives
// back when its walk ends), and comes back when the ring runs low. (Not a private array: NVIDIA
// keeps a dynamically indexed one in local memory, which slows the whole walk down.) Which nodes a
// round takes does not depend on where they are kept, so the lists, and every bit of the result,
// are those of an unbounded stack, whatever STACK_SIZE is, until SPILL_ROWS rows are full too; past
// that, rounds take fewer nodes, and an opened node whose children find no room adds its bodies
// directly (exact, slow).
//
// Defines: GROUP_SIZE (a power of two), BODIES_PER_THREAD (1 or 2: each tile entry read from shared
// memory serves that many bodies), TILE (a multiple of GROUP_SIZE), STACK_SIZE (a power of two,
// >= 4 x THREADS, so that a full ring always holds a row below what a round takes), SPILL_ROWS
// (rows a group may spill, 0 or more), SPILL_SLOT_NODES (what a slot holds, >= SPILL_ROWS x
// THREADS), EXPANSION_ORDER (1 monopole, 2 quadrupole), OPENING (0 geometric, 1 relative),
// ESTIMATE (1: each body's |a| / G into accelerationEstimate, nothing else), SOFTENED (see
// gravity.glsl), SUBGROUP_SCAN (1: the prefix sums through subgroup arithmetic, workgroup.glsl's,
// in subgroups of SUBGROUP_SIZE invocations that tile the work group), POTENTIAL (0: accelerations
// into uAcceleration; 1: the group's sum of m_i phi_i into B_POTENTIAL; 2: each body's G phi_i into
// uAcceleration's x), COUNT_ONLY (1: build the lists, count them, evaluate nothing: the cost
// model's list lengths at any N in seconds, even on llvmpipe, after the relative opening's coarse
// walk), GROUP_ORDER (1: the groups taken in the order of B_GROUP_ORDER, a permutation). The
// variants' code differs by `if` on these constants, which the compiler drops where false; #if
// only where a shared array exists in one variant and not another (shared memory is occupancy).
//
// CONTACTS (gravity.glsl's contact screening, with accelerations): a node is opened also where a
// body of the group could touch one of its bodies: where the box comes within the group's reach
// (the most any of its bodies looks, 2 r_i) plus the node's extent about c_hi, at most
// uContactExtent x its opening radius (l sqrt(3) / 2 + delta + |c_lo| <= max(1, theta sqrt(3) / 2)
// (l / theta + delta + |c_lo|)). So every body within reach of another meets it body by body, where
// the count happens; each body meets itself there exactly once (its own range is always opened).
// Nodes and bodies are read through tree_slots.glsl's slots (a decomposed tree's walker holds a
// segment and what it received; one GPU, everything at its index); references stay global.
// Files before this one: workgroup.glsl, group_rows.glsl, body_layout.glsl, gravity.glsl,
// external_potential.glsl,
// tree_common.glsl, tree_arrays.glsl, tree_slots.glsl.

#define THREADS WORKGROUP_SIZE  // GROUP_SIZE / BODIES_PER_THREAD invocations
#define BPT BODIES_PER_THREAD

layout(local_size_x = THREADS) in;

uniform uint uBodyCount;
uniform uint uGroupEnd;     // one past the last group of this walk
uniform uint uGroupOffset;  // the first group of this dispatch: a walk runs in parts (tree_walk.h)
uniform uint uLeafSize;   // an opened cell of at most this many bodies interacts body by body
uniform uint uSmallCell;  // an accepted cell of at most this many bodies interacts body by body
uniform uint uSpillSlots;  // slots in the spill pool
uniform float uGravity;
uniform float uOpeningScale2;  // the opening radius squared is scaled by this (1 but for ESTIMATE)
uniform float uTheta2;         // theta^2 of the opening radii: b^2 = uTheta2 r^2 (OPENING 1)
uniform float uAccuracy;       // OPENING 1's alpha
uniform float uContactExtent;  // CONTACTS: a node's extent about c_hi per unit of opening radius
uniform int uTextureWidth;
layout(rgba32f) writeonly uniform image2DArray uAcceleration;  // layer 0

READ_ARRAY(B_SORTED_BODIES, SortedBodies, vec4, sortedBodies, sampler2D, .xyzw, sortedBodyAt)
layout(std430, binding = B_VALUES_IN) readonly buffer SortedIndex { uint sortedIndex[]; };
READ_ARRAY(B_NODE_TEST, NodeTest, uvec4, nodeTest, usampler2D, .xyzw, nodeTestAt)
READ_ARRAY(B_NODE_QUAD, NodeQuad, vec4, nodeQuad, sampler2D, .xyzw, nodeQuadAt)  // c_lo.yz too
// |a| / G of each sorted body, ESTIMATE's for OPENING 1: the sort's spare values buffer, free once
// the bodies are sorted. At the body's slot less uBodiesBelow: a walker's own bodies from 0, so
// that they stay put when what it received is placed anew.
layout(std430, binding = B_VALUES_OUT) buffer AccelerationEstimates { float accelerationEstimate[]; };
layout(std430, binding = B_GROUP_STATS) writeonly buffer GroupStats { uvec4 groupStats[]; };
#if GROUP_ORDER
// The group each place of a part walks (tree_walk.h's WalkParts::order): the same groups, in
// another order, so the same bits.
layout(std430, binding = B_GROUP_ORDER) readonly buffer GroupOrder { uint groupOrder[]; };
#endif
layout(std430, binding = B_POTENTIAL) writeonly buffer Potential { double potentialSums[]; };
// uSpillSlots flags (0 free, 1 taken), then the slots, SPILL_SLOT_NODES each: entry `local` of row r
// of slot s at uSpillSlots + s SPILL_SLOT_NODES + r THREADS + local. coherent: a slot's next owner
// may run on another SM (each invocation only reads back what it wrote, but not past the L1s).
layout(std430, binding = B_SPILL) coherent buffer Spill { uint spill[]; };

const uint KIND_NONE = 0u, KIND_CELL = 1u, KIND_BODIES = 2u, KIND_CHILDREN = 3u;  // what a tested node gives
const uint NO_NODE = 0xffffffffu, NO_SLOT = 0xffffffffu;

shared uint stackRing[STACK_SIZE];  // the stack's top, a ring: position p at p & (STACK_SIZE - 1)
shared uint spillSlotTaken;         // the pool's slot the group took
// The scan's buffers (workgroup.glsl): two rows of THREADS, or with subgroups a total per subgroup
// (shared memory is occupancy); the potential's doubles at the end need THREADS.
shared uvec2 scanBuffer[SUBGROUP_SCAN != 0 ? 1 : 2]
                       [SUBGROUP_SCAN == 0 || POTENTIAL != 0 ? THREADS : THREADS / max(SUBGROUP_SIZE, 1)];
shared uint rangeFirst[THREADS];  // the round's body ranges: the first body's slot
shared uint rangeStart[THREADS];  // and place in the round's concatenated ranges
shared vec4 bodyTile[TILE];       // position, mass
shared uint bodyTileIndex[POTENTIAL != 0 ? TILE : 1];  // the potential's: slot
shared vec4 cellTile[TILE];    // c_hi, mass
shared vec4 cellTileLo[TILE];  // c_lo, trace of S
#if EXPANSION_ORDER >= 2
shared vec4 cellTileQuadA[TILE];  // S xx yy zz xy
shared vec2 cellTileQuadB[TILE];  // S xz yz
#endif

// Set once by main() (initialised here only so that compilers see them written before use).
uint local = 0u;
uint rank = 0u;  // this invocation's place in the order of the prefix sums (workgroupRank())
uint groupFirst = 0u, groupLast = 0u;      // sorted bodies of this group
vec3 anchor = vec3(0.0);                   // the group's first body: the opening test is relative to it
vec3 boxCentre = vec3(0.0), boxHalf = vec3(0.0);  // the group's bounding box, relative to the anchor
float openingAcceleration = 0.0;  // OPENING 1: uAccuracy x the least |a| / G of the group's bodies
float groupReach = 0.0;           // CONTACTS: the most any of the group's bodies looks
#if BPT == 1
#define PER_BODY(type, zero) type[1](zero)
#else
#define PER_BODY(type, zero) type[2](zero, zero)
#endif
uint self[BPT] = PER_BODY(uint, 0u);       // this invocation's bodies (local + k THREADS): slots
vec3 ri[BPT] = PER_BODY(vec3, vec3(0.0));  // their positions
#if CONTACTS
float contactHits[BPT] = PER_BODY(float, 0.0);  // bodies j within their reach, themselves included
#endif
vec3 acceleration[BPT] = PER_BODY(vec3, vec3(0.0));
float potential[BPT] = PER_BODY(float, 0.0);

// The round's prefix sums, in the order of `rank` (workgroup.glsl).
WORKGROUP_SCAN(exclusiveScan, uvec2, scanBuffer)

void mergeBoxes(uint into, uint from) {
  bodyTile[into] = min(bodyTile[into], bodyTile[from]);  // w: the least acceleration estimate
  cellTile[into] = max(cellTile[into], cellTile[from]);  // w: the greatest contact reach
}
WORKGROUP_REDUCE(reduceBoxes, mergeBoxes)

// The group's bounding box, relative to the anchor (invocations past the end repeat the last body),
// and for OPENING 1 its least acceleration estimate. The tiles are free before the walk: they hold
// the reduction.
void findGroupBox(vec4 bodies[BPT]) {
  bodyTile[local] = vec4(ri[0] - anchor, OPENING == 1 ? accelerationEstimate[self[0] - uBodiesBelow] : 0.0);
  cellTile[local] = vec4(ri[0] - anchor, CONTACTS != 0 ? contactReach(bodies[0].w) : 0.0);
  for (int k = 1; k < BPT; ++k) {
    float estimate = OPENING == 1 ? accelerationEstimate[self[k] - uBodiesBelow] : 0.0;
    bodyTile[local] = min(bodyTile[local], vec4(ri[k] - anchor, estimate));
    cellTile[local] = max(cellTile[local], vec4(ri[k] - anchor, CONTACTS != 0 ? contactReach(bodies[k].w) : 0.0));
  }
  reduceBoxes();
  boxCentre = (bodyTile[0].xyz + cellTile[0].xyz) * 0.5;
  boxHalf = (cellTile[0].xyz - bodyTile[0].xyz) * 0.5;
  openingAcceleration = uAccuracy * bodyTile[0].w;
  groupReach = cellTile[0].w;
  barrier();  // everyone has read the box before the walk fills the tiles
}

// ---- Interactions: every invocation adds the first `count` entries of a tile to its body.

struct Tested {
  uint kind;
  uint first, count;  // BODIES, CELL: the node's range (a body leaf: itself)
  uint slot;          // CELL: where its records are
  uvec2 children;
  vec4 com;           // CELL: c_hi, mass
  float comLoX;       // CELL: c_lo.x (the rest is in the quadrupole's record)
};

#if EXPANSION_ORDER >= 2
// The Plummer-softened potential -G [M g + 1/2 S : grad grad g] of a cell about its centre of mass,
// g(d) = (d.d + eps^2)^(-1/2), differentiated: with D1 = g(d) and u = d D1 (|u| <= 1),
//   a   = G D1^2 [ M u + D1^2 (7.5 (u.S u) u - 1.5 tr(S) u - 3 S u) ]
//   phi = -G D1 [ M + D1^2 (1.5 u.S u - 0.5 tr(S)) ]
// Written in u, no power of D1 above the 4th appears, and a cell of zero extent (S = 0) adds
// exactly its monopole: no 0 * inf however close it is.
void addCell(int k, vec4 comMass, vec4 comLoTrace, vec4 quadA, vec2 quadB) {
  vec3 d = (comMass.xyz - ri[k]) + comLoTrace.xyz;
  float r2 = fma(d.x, d.x, fma(d.y, d.y, fma(d.z, d.z, uSoftening2)));
  float inverseR = SOFTENED != 0 ? inversesqrt(r2) : r2 > 0.0 ? inversesqrt(r2) : 0.0;
  vec3 u = d * inverseR;
  float inverseR2 = inverseR * inverseR;
  vec3 su = vec3(quadA.x * u.x + quadA.w * u.y + quadB.x * u.z,
                 quadA.w * u.x + quadA.y * u.y + quadB.y * u.z,
                 quadB.x * u.x + quadB.y * u.y + quadA.z * u.z);
  float usu = dot(u, su);
  if (POTENTIAL != 0) {
    potential[k] -= inverseR * (comMass.w + inverseR2 * (1.5 * usu - 0.5 * comLoTrace.w));
  } else {
    float radial = comMass.w + inverseR2 * (7.5 * usu - 1.5 * comLoTrace.w);
    acceleration[k] += inverseR2 * (radial * u - (3.0 * inverseR2) * su);
  }
}

void evaluateCell(uint m) {
  vec4 comMass = cellTile[m], comLoTrace = cellTileLo[m], quadA = cellTileQuadA[m];
  vec2 quadB = cellTileQuadB[m];
  for (int k = 0; k < BPT; ++k) addCell(k, comMass, comLoTrace, quadA, quadB);
}

void putCell(uint slot, Tested cell) {
  cellTile[slot] = cell.com;
  vec4 quadA = nodeQuadAt(nodeVec(cell.slot, NODE_QUAD_A)), quadB = nodeQuadAt(nodeVec(cell.slot, NODE_QUAD_B));
  cellTileLo[slot] = vec4(cell.comLoX, quadB.zw, quadA.x + quadA.y + quadA.z);
  cellTileQuadA[slot] = quadA;
  cellTileQuadB[slot] = quadB.xy;
}
#else
// A monopole is a body at the centre of mass: addPair's law about the body's own position.
void evaluateCell(uint m) {
  vec4 comMass = cellTile[m];
  vec3 comLo = cellTileLo[m].xyz;
  for (int k = 0; k < BPT; ++k) {
    vec3 d = (comMass.xyz - ri[k]) + comLo;
    if (POTENTIAL != 0) {
      float r2 = dot(d, d) + uSoftening2;
      potential[k] -= comMass.w * (r2 > 0.0 ? inversesqrt(r2) : 0.0);
    } else {
      addPair(acceleration[k], vec3(0.0), vec4(d, comMass.w));
    }
  }
}

void putCell(uint slot, Tested cell) {
  cellTile[slot] = cell.com;
  cellTileLo[slot] = vec4(cell.comLoX, nodeQuadAt(nodeVec(cell.slot, NODE_QUAD_B)).zw, 0.0);
}
#endif

void evaluateCells(uint count) {
  for (uint m = 0u; m < count; ++m) evaluateCell(m);
}

void evaluateBodies(uint count) {
  for (uint m = 0u; m < count; ++m) {
    vec4 bodyJ = bodyTile[m];
    uint j = POTENTIAL != 0 ? bodyTileIndex[m] : 0u;
    for (int k = 0; k < BPT; ++k) {
      if (POTENTIAL != 0) {
        // The potential leaves out j == i by index: with eps > 0 its own term would not vanish.
        vec3 d = bodyJ.xyz - ri[k];
        float r2 = dot(d, d) + uSoftening2;
        if (j != self[k] && r2 > 0.0) potential[k] -= bodyJ.w * inversesqrt(r2);
      } else {
#if CONTACTS
        // j == i adds exactly 0 (gravity.glsl), and counts once: a count beyond 1 (where eps^2
        // itself is within reach) finds another body
        contactHits[k] += addPair(acceleration[k], ri[k], bodyJ) < contactReach2s[k] ? 1.0 : 0.0;
#else
        addPair(acceleration[k], ri[k], bodyJ);  // j == i adds exactly 0 (gravity.glsl)
#endif
      }
    }
  }
}

// ---- Building the lists.

// OPENING 1: whether the error a node of mass `mass` and opening radius^2 `r2` at distance^2 `d2`
// (> 0: the geometric test opened the rest) from the group's box leaves, G M b^p / d^(p+2), exceeds
// uAccuracy G |a| (p = EXPANSION_ORDER + 1). Written as (M / d^2) (b / d)^p, each factor the size of
// an acceleration or of 1, so that no unit of length or mass overflows it (M b^3 would at a galaxy
// in solar masses and AU).
bool opensRelative(float mass, float r2, float d2) {
  float q = uTheta2 * r2 / d2;  // (b / d)^2
  return (mass / d2) * (EXPANSION_ORDER >= 2 ? q * sqrt(q) : q) > openingAcceleration;
}

// The test reads one record, and the centre of mass as c_hi only: the opening radius has room for
// |c_lo| (tree_moments.comp).
Tested test(uint ref) {
  Tested result = Tested(KIND_NONE, 0u, 0u, 0u, uvec2(0u), vec4(0.0), 0.0);
  if (ref == NO_NODE) return result;
  if ((ref & LEAF_BIT) != 0u) {
    result.kind = KIND_BODIES;
    result.first = ref & ~LEAF_BIT;
    result.count = 1u;
    return result;
  }
  uint slot = nodeSlot(ref);
  vec4 comMass = uintBitsToFloat(nodeTestAt(nodeVec(slot, NODE_TEST_COM)));
  uvec4 links = nodeTestAt(nodeVec(slot, NODE_TEST_LINKS));
  uvec4 range = nodeRange(ref, links.y, links.z);
  vec3 com = comMass.xyz - anchor;
  vec3 outside = max(abs(com - boxCentre) - boxHalf, vec3(0.0));
  bool overlaps = range.x <= groupLast && range.y >= groupFirst;
  float d2 = dot(outside, outside), r2 = uintBitsToFloat(links.x);
  bool opened =
      overlaps || d2 <= r2 * uOpeningScale2 || (OPENING == 1 && opensRelative(comMass.w, r2, d2));
#if CONTACTS
  // Room for the roundings of the anchor-relative positions too: a few ulps of their size.
  float rounding = 1e-6 * (length(com) + length(boxCentre) + length(boxHalf));
  float contactDistance = fma(sqrt(r2), uContactExtent, groupReach) * 1.0001 + rounding;
  opened = opened || d2 <= contactDistance * contactDistance;
#endif
  result.count = range.y - range.x + 1u;
  result.first = range.x;
  result.slot = slot;
  result.children = range.zw;
  result.com = comMass;
  result.comLoX = uintBitsToFloat(links.w);
  if (opened) result.kind = result.count <= uLeafSize ? KIND_BODIES : KIND_CHILDREN;
  else result.kind = result.count <= uSmallCell ? KIND_BODIES : KIND_CELL;
  return result;
}

// What a tested node adds to the round's lists: (cells | stack entries << 16, bodies).
uvec2 listCounts(Tested t) {
  return uvec2((t.kind == KIND_CELL ? 1u : 0u) | (t.kind == KIND_CHILDREN ? 2u << 16 : 0u), t.kind == KIND_BODIES ? t.count : 0u);
}

// Appends this round's accepted cells to the cell tile; evaluates it when full. Returns the
// cells left pending.
uint appendCells(Tested mine, uint slot, uint total, uint pending) {
  if (COUNT_ONLY != 0) return 0u;
  uint room = uint(TILE) - pending;
  if (mine.kind == KIND_CELL && slot < room) putCell(pending + slot, mine);
  if (total < room) return pending + total;
  barrier();
  evaluateCells(uint(TILE));
  barrier();
  if (mine.kind == KIND_CELL && slot >= room) putCell(slot - room, mine);
  return total - room;
}

// Body `place` of the round's concatenated ranges (rangeFirst / rangeStart), as a slot: a binary
// search for the last range starting at or before it.
uint bodyAt(uint place) {
  uint range = 0u;
  for (uint step = uint(THREADS) / 2u; step > 0u; step >>= 1)
    if (rangeStart[range + step] <= place) range += step;
  return rangeFirst[range] + (place - rangeStart[range]);
}

// Appends this round's body ranges (set in rangeFirst / rangeStart) to the body tile, evaluating
// every full tile. Returns the bodies left pending.
uint appendBodies(uint total, uint pending) {
  if (COUNT_ONLY != 0) return 0u;
  barrier();
  for (uint consumed = 0u; consumed < total;) {
    uint n = min(uint(TILE) - pending, total - consumed);
    for (uint t = local; t < n; t += uint(THREADS)) {
      uint j = bodyAt(consumed + t);
      bodyTile[pending + t] = contactBody(sortedBodyAt(j));
      if (POTENTIAL != 0) bodyTileIndex[pending + t] = j;
    }
    barrier();
    pending += n;
    consumed += n;
    if (pending == uint(TILE)) {
      evaluateBodies(uint(TILE));
      pending = 0u;
      barrier();
    }
  }
  return pending;
}

// ---- The stack.

// Positions [bottom, top) are in the ring, [0, bottom) spilled to the pool's slot `slot` (NO_SLOT
// until the group takes one).
struct Stack {
  uint top, bottom, slot;
};

uint ringSlot(uint position) { return position & uint(STACK_SIZE - 1); }

// A free slot of the spill pool, for the whole group (a barrier: call in uniform control flow).
uint takeSpillSlot() {
  if (local == 0u) {
    uint slot = (linearGroupId() + uGroupOffset) % uSpillSlots;
    while (atomicCompSwap(spill[slot], 0u, 1u) != 0u) slot = (slot + 1u) % uSpillSlots;
    spillSlotTaken = slot;
  }
  barrier();
  return spillSlotTaken;
}

uint spilledEntry(uint slot, uint row) {
  return uSpillSlots + slot * uint(SPILL_SLOT_NODES) + row * uint(THREADS) + local;
}

// Rows between the ring and the spill slot before a round that takes `take` nodes: the newest
// spilled row comes back when the ring holds less than a round's worth of nodes; the ring's
// oldest rows leave while the round could push past the ring (it pushes up to 2 x take onto
// top - take). They leave from `bottom` (a multiple of THREADS); the row below what the round
// takes is always whole, as the ring holds at least 4 rows. Returns the rows spilled.
uint moveRows(inout Stack stack, uint take) {
  if (stack.top - stack.bottom < uint(THREADS) && stack.bottom > 0u) {
    stack.bottom -= uint(THREADS);
    stackRing[ringSlot(stack.bottom + local)] = spill[spilledEntry(stack.slot, stack.bottom / uint(THREADS))];
    barrier();
  }
  uint spilled = 0u;
  while (stack.top + take - stack.bottom > uint(STACK_SIZE) && stack.bottom / uint(THREADS) < uint(SPILL_ROWS)) {
    if (stack.slot == NO_SLOT) stack.slot = takeSpillSlot();
    spill[spilledEntry(stack.slot, stack.bottom / uint(THREADS))] = stackRing[ringSlot(stack.bottom + local)];
    stack.bottom += uint(THREADS);
    ++spilled;
  }
  return spilled;
}

// Where each invocation's node puts what it gives: exclusive prefix sums of listCounts over the
// round, and in `total` the round's. Rare: where the children would push past `limit`, a node
// whose children do not fit adds its bodies instead (exact, but a whole subtree of body-body
// interactions), and the sums are taken again; `overflows` counts such rounds.
uvec2 listPlaces(inout Tested mine, uint base, uint limit, out uvec2 total, inout uint overflows) {
  uvec2 before = exclusiveScan(listCounts(mine), total);
  if (base + (total.x >> 16) > limit) {
    if (mine.kind == KIND_CHILDREN && base + (before.x >> 16) + 2u > limit) mine.kind = KIND_BODIES;
    before = exclusiveScan(listCounts(mine), total);
    ++overflows;
  }
  return before;
}

// ---- The walk.

// Evaluates what the tiles hold; the group's walk is over, so its spill slot goes back (every
// spilled row came back before the last round's barrier, as the stack is empty).
void finishWalk(Stack stack, uint cellsPending, uint bodiesPending) {
  if (SPILL_ROWS > 0 && stack.slot != NO_SLOT && local == 0u) atomicExchange(spill[stack.slot], 0u);
  if (COUNT_ONLY != 0) return;
  evaluateCells(cellsPending);
  evaluateBodies(bodiesPending);
}

// One round: up to THREADS nodes off the stack, one an invocation, tested; accepted cells and
// bodies go to the lists (evaluated tile by tile), opened cells' children onto the stack.
// `pending`: cells and bodies in the tiles; `counted`: bodies, cells, nodes tested, overflows.
void walkRound(inout Stack stack, inout uvec2 pending, inout uvec4 counted, inout uint rowsSpilled) {
  uint take = min(stack.top, uint(THREADS));
  if (SPILL_ROWS > 0) rowsSpilled += moveRows(stack, take);
  // Once nothing more can spill, at most as many nodes as leave room for all their children, so
  // the stack never overflows however deep the tree; the traversal stays depth first.
  uint limit = stack.bottom + uint(STACK_SIZE);  // one past the highest position the ring holds now
  take = min(take, max(limit - stack.top, 1u));
  uint base = stack.top - take;
  uint ref = local < take ? stackRing[ringSlot(base + local)] : NO_NODE;
  Tested mine = test(ref);
  uvec2 total;
  uvec2 before = listPlaces(mine, base, limit, total, counted.w);
  if (mine.kind == KIND_CHILDREN) {
    stackRing[ringSlot(base + (before.x >> 16))] = mine.children.x;
    stackRing[ringSlot(base + (before.x >> 16) + 1u)] = mine.children.y;
  }
  // In rank order, so that rangeStart rises with the index; a range's first body is mapped once.
  rangeFirst[rank] = mine.kind == KIND_BODIES ? rangeSlot(mine.first, mine.count) : 0u;
  rangeStart[rank] = before.y;
  stack.top = base + (total.x >> 16);
  counted.xyz += uvec3(total.y, total.x & 0xffffu, take);
  pending.x = appendCells(mine, before.x & 0xffffu, total.x & 0xffffu, pending.x);
  pending.y = appendBodies(total.y, pending.y);
  barrier();  // the stack's pushes are visible to the next round's reads
}

// Walks the tree for this group, the tiles' last partial contents evaluated too. Returns the
// bodies, cells, nodes tested and rounds whose children overflowed; `rowsSpilled` the stack's.
uvec4 walk(out uint rowsSpilled) {
  uvec4 counted = uvec4(0u);
  rowsSpilled = 0u;
  if (local == 0u) stackRing[0] = uBodyCount == 1u ? LEAF_BIT : 0u;  // the root
  barrier();
  Stack stack = Stack(1u, 0u, NO_SLOT);
  uvec2 pending = uvec2(0u);  // cells, bodies
  while (stack.top > 0u) walkRound(stack, pending, counted, rowsSpilled);
  finishWalk(stack, pending.x, pending.y);
  return counted;
}

// ---- The group.

// This invocation's bodies (past the group's end: the last body again, results dropped), the
// anchor and the group's box. Returns the bodies' positions and masses.
void loadGroup(uint group, out vec4 bodies[BPT]) {
  groupFirst = group * uint(GROUP_SIZE);
  groupLast = min(groupFirst + uint(GROUP_SIZE), uBodyCount) - 1u;
  anchor = sortedBodyAt(bodySlot(groupFirst)).xyz;
  for (int k = 0; k < BPT; ++k) {
    self[k] = bodySlot(min(groupFirst + local + uint(k * THREADS), groupLast));
    bodies[k] = sortedBodyAt(self[k]);
    ri[k] = bodies[k].xyz;
    acceleration[k] = vec3(0.0);
    potential[k] = 0.0;
  }
#if CONTACTS
  beginContacts(bodies);
  for (int k = 0; k < BPT; ++k) contactHits[k] = 0.0;
#endif
  findGroupBox(bodies);
}

bool holds(int k) { return groupFirst + local + uint(k * THREADS) <= groupLast; }

// m_i phi_i of the group's bodies, added in a fixed order (the scan buffer holds the doubles).
void storePotential(uint group, vec4 bodies[BPT]) {
  double mine = 0.0;
  for (int k = 0; k < BPT; ++k)
    if (holds(k)) mine += double(bodies[k].w) * double(potential[k]);
  barrier();
  scanBuffer[0][local] = unpackDouble2x32(mine);
  barrier();
  if (local != 0u) return;
  double sum = 0.0;
  for (uint t = 0u; t < uint(THREADS); ++t) sum += packDouble2x32(scanBuffer[0][t]);
  potentialSums[group] = sum;
}

// Each body's potential G phi_i (its own term left out) in x of its texel.
void storeBodyPotentials() {
  for (int k = 0; k < BPT; ++k)
    if (holds(k))
      imageStore(uAcceleration, ivec3(texelOfBody(int(sortedIndex[self[k] - uBodiesBelow]), uTextureWidth), 0),
                 vec4(uGravity * potential[k], 0.0, 0.0, 0.0));
}

// |a| / G of each body, in sorted order, for the next walk's relative opening.
void storeEstimates() {
  for (int k = 0; k < BPT; ++k)
    if (holds(k)) accelerationEstimate[self[k] - uBodiesBelow] = length(acceleration[k]);
}

// w is 0: a distributed run moves only x, y and z between ranks (tree_share.comp).
void storeAccelerations() {
#if CONTACTS
  for (int k = 0; k < BPT; ++k)
    reportContact(holds(k) && contactHits[k] > (contactReach2s[k] > uSoftening2 ? 1.0 : 0.0));
#endif
  for (int k = 0; k < BPT; ++k)
    if (holds(k))
#if POTENTIAL_COMPONENTS > 0
      imageStore(uAcceleration, ivec3(texelOfBody(int(sortedIndex[self[k] - uBodiesBelow]), uTextureWidth), 0),
                 vec4(uGravity * acceleration[k] + externalAcceleration(ri[k]), 0.0));
#else
      imageStore(uAcceleration, ivec3(texelOfBody(int(sortedIndex[self[k] - uBodiesBelow]), uTextureWidth), 0),
                 vec4(uGravity * acceleration[k], 0.0));
#endif
}

void main() {
  uint group = linearGroupId() + uGroupOffset;
  if (group >= uGroupEnd) return;  // the whole work group: a dispatch spread over two dimensions
#if GROUP_ORDER
  group = groupOrder[group];
#endif
  local = gl_LocalInvocationID.x;
  rank = workgroupRank();
  vec4 bodies[BPT];
  loadGroup(group, bodies);
  uint rowsSpilled;
  uvec4 counted = walk(rowsSpilled);
  if (local == 0u) groupStats[group] = uvec4(counted.xyz, min(counted.w, 0xffffu) | (min(rowsSpilled, 0xffffu) << 16));
  if (POTENTIAL == 1) storePotential(group, bodies);
  else if (POTENTIAL == 2) storeBodyPotentials();
  else if (ESTIMATE != 0) storeEstimates();
  else if (COUNT_ONLY == 0) storeAccelerations();  // counting writes nothing (no image is bound for it)
}
