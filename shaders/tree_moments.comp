// Multipole moments bottom-up in one dispatch (Karras 2012, section 4; Apetrei 2014): one
// invocation per body leaf climbs towards the root; at each node an integer atomic counts the
// children finished, and only the second child to arrive computes the node, from its two children
// in a fixed order (left, right). Which invocation does the work varies from run to run; what it
// computes does not, so the moments are the same bits every run. Node data is `coherent` and each
// invocation fences its stores before its atomic (and its loads after), so the second arrival
// reads what the first stored (memoryBarrier orders memory between the invocations of one
// dispatch). A pass per level would need one dispatch per level of a tree up to ~90 deep.
//
// A cell keeps its mass, its centre of mass c as a float c_hi plus a small remainder c_lo (so a
// cell far from the origin keeps the precision of its bodies' differences: a cluster at 5e5 would
// otherwise round c by 0.03), its second moments about c (S = sum m x x^T, 6 numbers), and the
// square of its opening radius l / theta + delta + |c_lo|: l the largest side of the bounding box
// of its bodies, delta the distance of c from the box's centre (Bonsai's criterion, safe for a
// centre of mass far off-centre), |c_lo| because the walk's test measures from c_hi. (Where each
// number is kept: tree_common.glsl.) Children combine through differences only:
// c = c_A + w (c_B - c_A), w = m_B / m, S = S_A + S_B + (m_A m_B / m) D D^T, D = c_B - c_A.
// Nodes and bodies are read and written at tree_slots.glsl's slots (one GPU: their indices); a
// leaf's parent is at its slot, a node's after the segment's leaves. A decomposed tree's walker
// runs it twice: from its own leaves (a climb stops at a node that straddles segments, whose other
// child it does not hold), then from the straddling nodes' other children, which every rank holds
// (docs/decomposed-tree-design.md, section 4).
// Files before this one: workgroup.glsl, group_rows.glsl, body_layout.glsl, tree_common.glsl,
// tree_arrays.glsl,
// tree_slots.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform uint uBodyCount;
uniform float uInverseTheta;  // 1 / theta; +inf (theta = 0) opens every cell
// 0: an invocation climbs from each leaf of the segment; else from each of these nodes (a
// decomposed tree's top pass, from the parents of the straddling nodes' other children).
uniform uint uStartCount;

READ_ARRAY(B_SORTED_BODIES, SortedBodies, vec4, sortedBodies, sampler2D, .xyzw, sortedBodyAt)
READ_ARRAY(B_PARENTS, Parents, uint, parents, usampler2D, .x, parentAt)
SHARED_ARRAY(B_NODE_TEST, I_NODE_TEST, NodeTest, uvec4, nodeTest, uimage2D, rgba32ui, .xyzw, nodeTestAt, setNodeTest)
SHARED_ARRAY(B_NODE_QUAD, I_NODE_QUAD, NodeQuad, vec4, nodeQuad, image2D, rgba32f, .xyzw, nodeQuadAt, setNodeQuad)
SHARED_ARRAY(B_NODE_BOX_MIN, I_NODE_BOX_MIN, NodeBoxMin, vec4, nodeBoxMin, image2D, rgba32f, .xyzw, boxMinAt, setBoxMin)
SHARED_ARRAY(B_NODE_BOX_MAX, I_NODE_BOX_MAX, NodeBoxMax, vec4, nodeBoxMax, image2D, rgba32f, .xyzw, boxMaxAt, setBoxMax)
layout(std430, binding = B_VISITS) coherent buffer Visits { uint visits[]; };
layout(std430, binding = B_SPLIT) readonly buffer StartNodes { uint startNodes[]; };

struct Cell {
  float mass;
  vec3 comHi, comLo;
  vec3 diagonal, offDiagonal;  // S: xx yy zz, xy xz yz
  vec3 boxMin, boxMax;
};

Cell loadChild(uint ref) {
  if ((ref & LEAF_BIT) != 0u) {
    vec4 body = sortedBodyAt(bodySlot(ref & ~LEAF_BIT));
    return Cell(body.w, body.xyz, vec3(0.0), vec3(0.0), vec3(0.0), body.xyz, body.xyz);
  }
  uint slot = nodeSlot(ref);
  vec4 comMass = uintBitsToFloat(nodeTestAt(nodeVec(slot, NODE_TEST_COM)));
  float comLoX = uintBitsToFloat(nodeTestAt(nodeVec(slot, NODE_TEST_LINKS)).w);
  vec4 quadA = nodeQuadAt(nodeVec(slot, NODE_QUAD_A)), quadB = nodeQuadAt(nodeVec(slot, NODE_QUAD_B));
  return Cell(comMass.w, comMass.xyz, vec3(comLoX, quadB.zw), quadA.xyz, vec3(quadA.w, quadB.xy),
              boxMinAt(slot).xyz, boxMaxAt(slot).xyz);
}

Cell combine(Cell a, Cell b) {
  Cell cell;
  cell.mass = a.mass + b.mass;
  float w = cell.mass > 0.0 ? b.mass / cell.mass : 0.5;  // massless cells: the midpoint
  vec3 d = (b.comHi - a.comHi) + (b.comLo - a.comLo);    // c_B - c_A
  // c = c_A + w D, rounded to c_hi with the remainder in c_lo (fast two-sum, exact when
  // |c_hi| >= |remainder|, i.e. whenever precision matters). `precise`: no fused or reordered ops.
  precise vec3 shift = a.comLo + w * d;
  precise vec3 hi = a.comHi + shift;
  precise vec3 lo = shift - (hi - a.comHi);
  cell.comHi = hi;
  cell.comLo = lo;
  float reducedMass = a.mass * w;  // m_A m_B / m
  cell.diagonal = a.diagonal + b.diagonal + reducedMass * d * d;
  cell.offDiagonal = a.offDiagonal + b.offDiagonal + reducedMass * vec3(d.x * d.y, d.x * d.z, d.y * d.z);
  cell.boxMin = min(a.boxMin, b.boxMin);
  cell.boxMax = max(a.boxMax, b.boxMax);
  return cell;
}

// (l / theta + delta + |c_lo|)^2: l the largest side of the box, delta |c - box centre|.
float openingRadius2(Cell cell) {
  if (isinf(uInverseTheta)) return uintBitsToFloat(0x7f800000u);
  vec3 side = cell.boxMax - cell.boxMin;
  vec3 centreFromCom = ((cell.boxMin - cell.comHi) + (cell.boxMax - cell.comHi)) * 0.5 - cell.comLo;
  float radius = max(max(side.x, side.y), side.z) * uInverseTheta + length(centreFromCom) + length(cell.comLo);
  return radius * radius;
}

// The record at `node` (a slot) but its links (the topology's), which it keeps.
void store(uint node, uvec2 links, Cell cell) {
  setNodeTest(nodeVec(node, NODE_TEST_COM), floatBitsToUint(vec4(cell.comHi, cell.mass)));
  setNodeTest(nodeVec(node, NODE_TEST_LINKS),
              uvec4(floatBitsToUint(openingRadius2(cell)), links, floatBitsToUint(cell.comLo.x)));
  setNodeQuad(nodeVec(node, NODE_QUAD_A), vec4(cell.diagonal, cell.offDiagonal.x));
  setNodeQuad(nodeVec(node, NODE_QUAD_B), vec4(cell.offDiagonal.yz, cell.comLo.yz));
  setBoxMin(node, vec4(cell.boxMin, 0.0));
  setBoxMax(node, vec4(cell.boxMax, 0.0));
}

void main() {
  uint k = linearGroupId() * uint(WORKGROUP_SIZE) + gl_LocalInvocationID.x;
  if (k >= (uStartCount > 0u ? uStartCount : uSlotCount) || uBodyCount < 2u) return;
  uint node = uStartCount > 0u ? startNodes[k] : parentAt(k);
  while (true) {
    uint slot = nodeSlot(node);
    arrayBarrier();  // this invocation's stores of the child land before the count
    if (atomicAdd(visits[slot], 1u) == 0u) return;  // the sibling is not done: it will come here
    arrayBarrier();  // and the sibling's stores are read after the count
    uvec2 links = nodeTestAt(nodeVec(slot, NODE_TEST_LINKS)).yz;  // the other end, the split
    uvec4 range = nodeRange(node, links.x, links.y);
    store(slot, links, combine(loadChild(range.z), loadChild(range.w)));
    if (node == 0u) return;
    node = parentAt(uSlotCount + slot);
  }
}
