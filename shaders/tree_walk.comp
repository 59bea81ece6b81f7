// The tree walk: one work group per group of GROUP_SIZE consecutive bodies in key order (close in
// space), BODIES_PER_THREAD bodies per invocation, all walking the tree together and sharing one
// interaction list (Bonsai's scheme, without subgroup operations: shared memory and barrier() only).
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
// Interactions use absolute positions, as the direct kernel does (the difference of two nearby
// floats is exact), and a cell's centre of mass as c_hi + c_lo: d = (c_hi - r_i) + c_lo, so a
// cluster far from the origin keeps the precision of direct summation. (Positions relative to the
// group's first body lost it where a group straddles two clusters 1e6 apart.) The opening test
// takes the group's box and the c_hi relative to that body, the "anchor"; a node's opening radius
// has room for the c_lo it leaves out, so the test reads one 32-byte record a node.
//
// The stack: the walk leaves up to THREADS pending nodes on it per tree level it descends, so a
// deep tree (a Plummer core at 16M bodies) needs thousands of entries, while shared memory is what
// sets how many work groups an SM runs. So only its top lives in shared memory, a ring of
// STACK_SIZE entries; when a round could overflow the ring, its oldest row of THREADS entries
// moves to GPU memory, into a slot of a pool that the group takes the first time (an integer
// compare-and-swap; a group that finds every slot taken waits for one, which a running group gives
// back when its walk ends), and comes back when the ring runs low. (A private array, which NVIDIA
// keeps in local memory, cost 50% of the walk's speed merely by being declared.) Which nodes a
// round takes does not depend on where they are kept, so the lists, and every bit of the result,
// are those of an unbounded stack, whatever STACK_SIZE is, until SPILL_ROWS rows are full too; past
// that, rounds take fewer nodes, and an opened node whose children find no room adds its bodies
// directly (exact, slow).
//
// Defines: GROUP_SIZE (a power of two), BODIES_PER_THREAD (1 or 2: each tile entry read from shared
// memory serves that many bodies), TILE (a multiple of GROUP_SIZE), STACK_SIZE (a power of two,
// >= 4 x THREADS, so that a full ring always holds a row below what a round takes), SPILL_ROWS
// (rows a group may spill, 0 or more), SPILL_SLOT_NODES (what a slot holds, >= SPILL_ROWS x
// THREADS), EXPANSION_ORDER (1 monopole, 2 quadrupole), SOFTENED (see
// gravity.glsl), SUBGROUP_SCAN (1: the prefix sums through subgroup arithmetic, workgroup.glsl's, in
// subgroups of SUBGROUP_SIZE invocations that tile the work group), POTENTIAL (0:
// accelerations into uAcceleration; 1: the group's sum of m_i phi_i into B_POTENTIAL), COUNT_ONLY
// (1: build the lists, count them, evaluate nothing: the cost model's list lengths at any N in
// seconds, even on llvmpipe).
// Files before this one: workgroup.glsl, body_layout.glsl, gravity.glsl, tree_common.glsl.

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

layout(std430, binding = B_SORTED_BODIES) readonly buffer SortedBodies { vec4 sortedBodies[]; };
layout(std430, binding = B_VALUES_IN) readonly buffer SortedIndex { uint sortedIndex[]; };
layout(std430, binding = B_NODE_TEST) readonly buffer NodeTest { uvec4 nodeTest[]; };
layout(std430, binding = B_NODE_QUAD) readonly buffer NodeQuad { vec4 nodeQuad[]; };  // c_lo.yz too
layout(std430, binding = B_GROUP_STATS) writeonly buffer GroupStats { uvec4 groupStats[]; };
#if SPILL_ROWS > 0
// uSpillSlots flags (0 free, 1 taken), then the slots, SPILL_SLOT_NODES each: entry `local` of row r
// of slot s at uSpillSlots + s SPILL_SLOT_NODES + r THREADS + local. coherent: a slot's next owner
// may run on another SM (each invocation only reads back what it wrote, but not past the L1s).
layout(std430, binding = B_SPILL) coherent buffer Spill { uint spill[]; };
#endif
#if POTENTIAL
layout(std430, binding = B_POTENTIAL) writeonly buffer Potential { double potentialSums[]; };
#else
layout(rgba32f) writeonly uniform image2DArray uAcceleration;  // layer 0
uniform int uTextureWidth;
#endif

const uint KIND_NONE = 0u, KIND_CELL = 1u, KIND_BODIES = 2u, KIND_CHILDREN = 3u;  // what a tested node gives

shared uint stack[STACK_SIZE];  // the stack's top, a ring: position p at p & (STACK_SIZE - 1)
shared uint spillSlotTaken;      // the pool's slot the group took
#if !SUBGROUP_SCAN
shared uvec2 scanBuffer[2][THREADS];  // Hillis-Steele's two buffers; the potential's doubles at the end
#elif POTENTIAL
shared uvec2 scanBuffer[1][THREADS];  // the subgroups' totals; the potential's doubles at the end
#else
shared uvec2 scanBuffer[1][THREADS / SUBGROUP_SIZE];  // the subgroups' totals (shared memory is occupancy)
#endif
shared uint rangeFirst[THREADS];  // the round's body ranges: first sorted body
shared uint rangeStart[THREADS];  // and place in the round's concatenated ranges
shared vec4 bodyTile[TILE];          // position, mass
#if POTENTIAL
shared uint bodyTileIndex[TILE];
#endif
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
#if BPT == 1
#define PER_BODY(type, zero) type[1](zero)
#else
#define PER_BODY(type, zero) type[2](zero, zero)
#endif
uint self[BPT] = PER_BODY(uint, 0u);       // this invocation's sorted bodies: local + k THREADS
vec3 ri[BPT] = PER_BODY(vec3, vec3(0.0));  // their positions
vec3 acceleration[BPT] = PER_BODY(vec3, vec3(0.0));
float potential[BPT] = PER_BODY(float, 0.0);

// The round's prefix sums, in the order of `rank` (workgroup.glsl).
WORKGROUP_SCAN(exclusiveScan, uvec2, scanBuffer)

void mergeBoxes(uint into, uint from) {
  bodyTile[into].xyz = min(bodyTile[into].xyz, bodyTile[from].xyz);
  cellTile[into].xyz = max(cellTile[into].xyz, cellTile[from].xyz);
}
WORKGROUP_REDUCE(reduceBoxes, mergeBoxes)

// The group's bounding box, relative to the anchor (invocations past the end repeat the last body).
// The tiles are free before the walk: they hold the reduction.
void findGroupBox() {
  bodyTile[local].xyz = ri[0] - anchor;
  cellTile[local].xyz = ri[0] - anchor;
  for (int k = 1; k < BPT; ++k) {
    bodyTile[local].xyz = min(bodyTile[local].xyz, ri[k] - anchor);
    cellTile[local].xyz = max(cellTile[local].xyz, ri[k] - anchor);
  }
  reduceBoxes();
  boxCentre = (bodyTile[0].xyz + cellTile[0].xyz) * 0.5;
  boxHalf = (cellTile[0].xyz - bodyTile[0].xyz) * 0.5;
  barrier();  // everyone has read the box before the walk fills the tiles
}

// ---- Interactions: every invocation adds the first `count` entries of a tile to its body.

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
#if SOFTENED
  float inverseR = inversesqrt(r2);
#else
  float inverseR = r2 > 0.0 ? inversesqrt(r2) : 0.0;
#endif
  vec3 u = d * inverseR;
  float inverseR2 = inverseR * inverseR;
  vec3 su = vec3(quadA.x * u.x + quadA.w * u.y + quadB.x * u.z,
                 quadA.w * u.x + quadA.y * u.y + quadB.y * u.z,
                 quadB.x * u.x + quadB.y * u.y + quadA.z * u.z);
  float usu = dot(u, su);
#if POTENTIAL
  potential[k] -= inverseR * (comMass.w + inverseR2 * (1.5 * usu - 0.5 * comLoTrace.w));
#else
  float radial = comMass.w + inverseR2 * (7.5 * usu - 1.5 * comLoTrace.w);
  acceleration[k] += inverseR2 * (radial * u - (3.0 * inverseR2) * su);
#endif
}
#endif

void evaluateCells(uint count) {
  for (uint m = 0u; m < count; ++m) {
#if EXPANSION_ORDER >= 2
    vec4 comMass = cellTile[m], comLoTrace = cellTileLo[m], quadA = cellTileQuadA[m];
    vec2 quadB = cellTileQuadB[m];
    for (int k = 0; k < BPT; ++k) addCell(k, comMass, comLoTrace, quadA, quadB);
#else
    vec4 comMass = cellTile[m];
    vec3 comLo = cellTileLo[m].xyz;
    for (int k = 0; k < BPT; ++k) {
      // A monopole is a body at the centre of mass: addPair's law about the body's own position.
      vec3 d = (comMass.xyz - ri[k]) + comLo;
#if POTENTIAL
      float r2 = dot(d, d) + uSoftening2;
      potential[k] -= comMass.w * (r2 > 0.0 ? inversesqrt(r2) : 0.0);
#else
      addPair(acceleration[k], vec3(0.0), vec4(d, comMass.w));
#endif
    }
#endif
  }
}

void evaluateBodies(uint count) {
  for (uint m = 0u; m < count; ++m) {
    vec4 bodyJ = bodyTile[m];
#if POTENTIAL
    uint j = bodyTileIndex[m];
#endif
    for (int k = 0; k < BPT; ++k) {
#if POTENTIAL
      // The potential leaves out j == i by index: with eps > 0 its own term would not vanish.
      vec3 d = bodyJ.xyz - ri[k];
      float r2 = dot(d, d) + uSoftening2;
      if (j != self[k] && r2 > 0.0) potential[k] -= bodyJ.w * inversesqrt(r2);
#else
      addPair(acceleration[k], ri[k], bodyJ);  // j == i adds exactly 0 (gravity.glsl)
#endif
    }
  }
}

// ---- Building the lists.

struct Tested {
  uint kind;
  uint first, count;  // BODIES, CELL: the node's range (a body leaf: itself)
  uvec2 children;
  vec4 com;           // CELL: c_hi, mass
  float comLoX;       // CELL: c_lo.x (the rest is in the quadrupole's record)
};

// The test reads one record, and the centre of mass as c_hi only: the opening radius has room for
// |c_lo| (tree_moments.comp).
Tested test(uint ref) {
  Tested result = Tested(KIND_NONE, 0u, 0u, uvec2(0u), vec4(0.0), 0.0);
  if (ref == 0xffffffffu) return result;
  if ((ref & LEAF_BIT) != 0u) {
    result.kind = KIND_BODIES;
    result.first = ref & ~LEAF_BIT;
    result.count = 1u;
    return result;
  }
  vec4 comMass = uintBitsToFloat(nodeTest[nodeVec(ref, NODE_TEST_COM)]);
  uvec4 links = nodeTest[nodeVec(ref, NODE_TEST_LINKS)];
  uvec4 range = nodeRange(ref, links.y, links.z);
  vec3 com = comMass.xyz - anchor;
  vec3 outside = max(abs(com - boxCentre) - boxHalf, vec3(0.0));
  bool overlaps = range.x <= groupLast && range.y >= groupFirst;
  bool opened = overlaps || dot(outside, outside) <= uintBitsToFloat(links.x);
  result.count = range.y - range.x + 1u;
  result.first = range.x;
  result.children = range.zw;
  result.com = comMass;
  result.comLoX = uintBitsToFloat(links.w);
  if (opened) result.kind = result.count <= uLeafSize ? KIND_BODIES : KIND_CHILDREN;
  else result.kind = result.count <= uSmallCell ? KIND_BODIES : KIND_CELL;
  return result;
}

uvec2 listCounts(Tested t) {
  return uvec2((t.kind == KIND_CELL ? 1u : 0u) | (t.kind == KIND_CHILDREN ? 2u << 16 : 0u), t.kind == KIND_BODIES ? t.count : 0u);
}

void putCell(uint slot, Tested cell, uint node) {
  cellTile[slot] = cell.com;
#if EXPANSION_ORDER >= 2
  vec4 quadA = nodeQuad[nodeVec(node, NODE_QUAD_A)], quadB = nodeQuad[nodeVec(node, NODE_QUAD_B)];
  cellTileLo[slot] = vec4(cell.comLoX, quadB.zw, quadA.x + quadA.y + quadA.z);
  cellTileQuadA[slot] = quadA;
  cellTileQuadB[slot] = quadB.xy;
#else
  cellTileLo[slot] = vec4(cell.comLoX, nodeQuad[nodeVec(node, NODE_QUAD_B)].zw, 0.0);
#endif
}

// Appends this round's accepted cells to the cell tile; evaluates it when full. Returns the
// cells left pending.
uint appendCells(Tested mine, uint node, uint slot, uint total, uint pending) {
#if COUNT_ONLY
  return 0u;
#else
  uint room = uint(TILE) - pending;
  if (mine.kind == KIND_CELL && slot < room) putCell(pending + slot, mine, node);
  if (total < room) return pending + total;
  barrier();
  evaluateCells(uint(TILE));
  barrier();
  if (mine.kind == KIND_CELL && slot >= room) putCell(slot - room, mine, node);
  return total - room;
#endif
}

// Appends this round's body ranges (set in rangeFirst / rangeStart) to the body tile, evaluating
// every full tile. Returns the bodies left pending.
uint appendBodies(uint total, uint pending) {
#if COUNT_ONLY
  return 0u;
#else
  barrier();
  for (uint consumed = 0u; consumed < total;) {
    uint n = min(uint(TILE) - pending, total - consumed);
    for (uint t = local; t < n; t += uint(THREADS)) {
      uint place = consumed + t, range = 0u;  // the last range starting at or before `place`
      for (uint step = uint(THREADS) / 2u; step > 0u; step >>= 1)
        if (rangeStart[range + step] <= place) range += step;
      uint j = rangeFirst[range] + (place - rangeStart[range]);
      bodyTile[pending + t] = sortedBodies[j];
#if POTENTIAL
      bodyTileIndex[pending + t] = j;
#endif
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
#endif
}

uint ringSlot(uint position) { return position & uint(STACK_SIZE - 1); }

#if SPILL_ROWS > 0
const uint NO_SLOT = 0xffffffffu;

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
#endif

// Walks the tree for this group; leaves the tiles' last partial contents evaluated too.
uvec4 walk(out uint rowsSpilled) {
  uvec4 counted = uvec4(0u);  // bodies, cells, nodes tested, rounds whose children overflowed
  rowsSpilled = 0u;
  if (local == 0u) stack[0] = uBodyCount == 1u ? LEAF_BIT : 0u;  // the root
  barrier();
  uint top = 1u, bottom = 0u;  // stack positions [bottom, top) are in the ring, [0, bottom) spilled
  uint cellsPending = 0u, bodiesPending = 0u;
#if SPILL_ROWS > 0
  uint slot = NO_SLOT;  // the pool's slot for this group's spilled rows, once it has one
#endif
  while (top > 0u) {
    uint take = min(top, uint(THREADS));
#if SPILL_ROWS > 0
    // The newest spilled row comes back when the ring holds less than a round's worth of nodes.
    if (top - bottom < uint(THREADS) && bottom > 0u) {
      bottom -= uint(THREADS);
      stack[ringSlot(bottom + local)] = spill[spilledEntry(slot, bottom / uint(THREADS))];
      barrier();
    }
    // The ring's oldest rows leave while this round could push past the ring (it pushes up to
    // 2 x take onto top - take). They leave from `bottom` (a multiple of THREADS); the row below
    // what the round takes is always whole, as the ring holds at least 4 rows.
    while (top + take - bottom > uint(STACK_SIZE) && bottom / uint(THREADS) < uint(SPILL_ROWS)) {
      if (slot == NO_SLOT) slot = takeSpillSlot();
      spill[spilledEntry(slot, bottom / uint(THREADS))] = stack[ringSlot(bottom + local)];
      bottom += uint(THREADS);
      ++rowsSpilled;
    }
#endif
    // Once nothing more can spill, at most as many nodes as leave room for all their children: a
    // round may push two children a node, so taking fewer near a full stack keeps it from
    // overflowing however deep the tree (the overflow path below, which adds a node's bodies one
    // by one, costs a whole subtree of body-body interactions). The traversal stays depth first.
    uint limit = bottom + uint(STACK_SIZE);  // one past the highest position the ring holds now
    take = min(take, max(limit - top, 1u));
    uint base = top - take;
    uint ref = local < take ? stack[ringSlot(base + local)] : 0xffffffffu;
    Tested mine = test(ref);
    uvec2 total;
    uvec2 before = exclusiveScan(listCounts(mine), total);
    if (base + (total.x >> 16) > limit) {  // rare: children that do not fit add their bodies
      if (mine.kind == KIND_CHILDREN && base + (before.x >> 16) + 2u > limit) mine.kind = KIND_BODIES;
      before = exclusiveScan(listCounts(mine), total);
      ++counted.w;
    }
    if (mine.kind == KIND_CHILDREN) {
      stack[ringSlot(base + (before.x >> 16))] = mine.children.x;
      stack[ringSlot(base + (before.x >> 16) + 1u)] = mine.children.y;
    }
    rangeFirst[rank] = mine.first;  // in rank order, so that rangeStart rises with the index
    rangeStart[rank] = before.y;
    top = base + (total.x >> 16);
    counted.xyz += uvec3(total.y, total.x & 0xffffu, take);
    cellsPending = appendCells(mine, ref, before.x & 0xffffu, total.x & 0xffffu, cellsPending);
    bodiesPending = appendBodies(total.y, bodiesPending);
    barrier();  // the stack's pushes are visible to the next round's reads
  }
#if SPILL_ROWS > 0
  // Every spilled row came back (the stack is empty) before the last round's barrier: give the
  // slot back.
  if (slot != NO_SLOT && local == 0u) atomicExchange(spill[slot], 0u);
#endif
#if !COUNT_ONLY
  evaluateCells(cellsPending);
  evaluateBodies(bodiesPending);
#endif
  return counted;
}

void main() {
  uint group = linearGroupId() + uGroupOffset;
  if (group >= uGroupEnd) return;  // the whole work group: a dispatch spread over two dimensions
  local = gl_LocalInvocationID.x;
  rank = workgroupRank();
  groupFirst = group * uint(GROUP_SIZE);
  groupLast = min(groupFirst + uint(GROUP_SIZE), uBodyCount) - 1u;
  anchor = sortedBodies[groupFirst].xyz;
  vec4 bodies[BPT];
  for (int k = 0; k < BPT; ++k) {  // past the group's end: the last body again, results dropped
    self[k] = min(groupFirst + local + uint(k * THREADS), groupLast);
    bodies[k] = sortedBodies[self[k]];
    ri[k] = bodies[k].xyz;
    acceleration[k] = vec3(0.0);
    potential[k] = 0.0;
  }
  findGroupBox();
  uint rowsSpilled;
  uvec4 counted = walk(rowsSpilled);
  if (local == 0u) groupStats[group] = uvec4(counted.xyz, min(counted.w, 0xffffu) | (min(rowsSpilled, 0xffffu) << 16));
#if POTENTIAL
  // m_i phi_i of the group's bodies, added in a fixed order (the scan buffer holds the doubles).
  double mine = 0.0;
  for (int k = 0; k < BPT; ++k)
    if (groupFirst + local + uint(k * THREADS) <= groupLast) mine += double(bodies[k].w) * double(potential[k]);
  barrier();
  scanBuffer[0][local] = unpackDouble2x32(mine);
  barrier();
  if (local == 0u) {
    double sum = 0.0;
    for (uint t = 0u; t < uint(THREADS); ++t) sum += packDouble2x32(scanBuffer[0][t]);
    potentialSums[group] = sum;
  }
#elif !COUNT_ONLY  // counting writes nothing (no image is bound for it)
  for (int k = 0; k < BPT; ++k)
    if (groupFirst + local + uint(k * THREADS) <= groupLast)
      imageStore(uAcceleration, ivec3(texelOfBody(int(sortedIndex[self[k]]), uTextureWidth), 0),
                 vec4(uGravity * acceleration[k], 0.0));
#endif
}
