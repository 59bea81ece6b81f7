// The decomposed tree's gathers and scatters by index (tree_migrate.h, engines/held_bodies.h).
// Each rank holds its bodies' state (every texture of its StageTextures, body i at texel i, IDs
// ascending); what crosses to another rank travels as a parcel of texels, uStride texels a body,
// texture after texture at uOffset. Bits only move, as the sort's gather moves them on one GPU.
// MODE 0: the texels of the home's sorted bodies that leave (sorted positions [0, uBelow), then
//   from uBelow + uOwn: the own part stays), from the texture at image unit 1 into `parcel`.
// MODE 1: the IDs of a home's sorted bodies, ids[valuesIn[i]] (valuesIn: the local index of
//   sorted body i), into `sorted`.
// MODE 2: table[keys[uFirst + i] - uWindowFirst] = values[uFirst + i], or uFlag | i where uFlag is
//   set: only the keys of the window [uWindowFirst, + uWindowSlots), the table's slots.
// MODE 3: out[uFirst + i] = table[index[uFirst + i] - uWindowFirst] (each index in the window).
// MODE 4: a held texture laid out anew (image unit 0): texel i from the old texture's (image unit
//   1) texel sources[i], or from the parcel's body k where sources[i] is MOVED_BIT | k; 0 past
//   uCount (massless padding).
// ARRAY 1 (MODE 0 and 4): the textures are 2-D arrays of one layer (the stage accelerations).
// PIECES 1 (MODE 0 and 4): the bodies that move travel in pieces (one texture at a time, a share of
//   each rank's list in each piece). MODE 0 packs the sorted bodies [uSortedFirst, + uCount) at the
//   parcel's body uParcelFirst on; MODE 4 writes the own bodies' texels and the padding only where
//   uOwnToo is set (the first piece), and of a moved body k only where it is in this piece: its
//   sender s is the last whose first arrival senders[s].x is at most k, and its place among the
//   sender's arrivals, j = k - senders[s].x, within [senders[s].y, senders[s].z), is at the
//   parcel's body senders[s].w + j - senders[s].y.
// Files before this one: workgroup.glsl, group_rows.glsl, body_layout.glsl, tree_common.glsl,
// tree_arrays.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

uniform uint uCount;

#define MOVED_BIT 0x80000000u

#if MODE == 0 || MODE == 4
uniform uint uStride, uOffset;
// The textures are read as images, as they are written (performance-history round 36: read
// through samplers, the move's packing took ~22 ms an evaluation on an H200 at 16.8M bodies).
#if ARRAY
layout(rgba32f, binding = 1) readonly uniform image2DArray uOld;
vec4 oldTexel(ivec2 texel) { return imageLoad(uOld, ivec3(texel, 0)); }
#else
layout(rgba32f, binding = 1) readonly uniform image2D uOld;
vec4 oldTexel(ivec2 texel) { return imageLoad(uOld, texel); }
#endif
int oldWidth() { return imageSize(uOld).x; }
ivec2 texelIn(uint index, int width) {
  return ivec2(int(index % uint(width)), int(index / uint(width)));
}
#endif

#if MODE == 0
#if PIECES
uniform uint uSortedFirst, uParcelFirst;
#else
uniform uint uBelow, uOwn;
#endif
layout(std430, binding = B_VALUES_IN) readonly buffer ValuesIn { uint valuesIn[]; };
layout(std430, binding = B_LET_LISTS) writeonly buffer Parcel { vec4 parcel[]; };
#elif MODE == 1
layout(std430, binding = B_VALUES_IN) readonly buffer ValuesIn { uint valuesIn[]; };
layout(std430, binding = B_LET_MARKS) readonly buffer Ids { uint ids[]; };
layout(std430, binding = B_LET_LISTS) writeonly buffer Sorted { uint sorted[]; };
#elif MODE == 2
uniform uint uFirst, uFlag, uWindowFirst, uWindowSlots;
layout(std430, binding = B_VALUES_IN) readonly buffer ValuesIn { uint valuesIn[]; };
layout(std430, binding = B_LET_CHUNKS) readonly buffer Keys { uint keys[]; };
layout(std430, binding = B_LET_MARKS) writeonly buffer Table { uint table[]; };
#elif MODE == 3
uniform uint uFirst, uWindowFirst;
layout(std430, binding = B_LET_CHUNKS) readonly buffer Index { uint index[]; };
layout(std430, binding = B_LET_MARKS) readonly buffer Table { uint table[]; };
layout(std430, binding = B_LET_LISTS) writeonly buffer Out { uint words[]; };
#else
uniform uint uTexels;
layout(std430, binding = B_LET_MARKS) readonly buffer Sources { uint sources[]; };
layout(std430, binding = B_LET_CHUNKS) readonly buffer Parcel { vec4 parcel[]; };
#if PIECES
uniform uint uSenders, uOwnToo;
layout(std430, binding = B_LET_LISTS) readonly buffer Senders { uvec4 senders[]; };
#endif
#if ARRAY
layout(rgba32f, binding = 0) writeonly uniform image2DArray uFresh;
void store(ivec2 texel, vec4 value) { imageStore(uFresh, ivec3(texel, 0), value); }
int freshWidth() { return imageSize(uFresh).x; }
#else
layout(rgba32f, binding = 0) writeonly uniform image2D uFresh;
void store(ivec2 texel, vec4 value) { imageStore(uFresh, texel, value); }
int freshWidth() { return imageSize(uFresh).x; }
#endif
#endif

void main() {
  uint i = linearGroupId() * WORKGROUP_SIZE + gl_LocalInvocationID.x;
#if MODE == 0
  if (i >= uCount) return;
#if PIECES
  uint local = valuesIn[uSortedFirst + i];
  parcel[(uParcelFirst + i) * uStride + uOffset] = oldTexel(texelIn(local, oldWidth()));
#else
  uint local = valuesIn[i < uBelow ? i : i + uOwn];
  parcel[i * uStride + uOffset] = oldTexel(texelIn(local, oldWidth()));
#endif
#elif MODE == 1
  if (i >= uCount) return;
  sorted[i] = ids[valuesIn[i]];
#elif MODE == 2
  if (i >= uCount) return;
  uint slot = keys[uFirst + i] - uWindowFirst;  // past the window: wraps beyond it
  if (slot < uWindowSlots) table[slot] = uFlag != 0u ? (uFlag | i) : valuesIn[uFirst + i];
#elif MODE == 3
  if (i >= uCount) return;
  words[uFirst + i] = table[index[uFirst + i] - uWindowFirst];
#else
  if (i >= uTexels) return;
  vec4 value = vec4(0.0);
#if PIECES
  bool moved = i < uCount && (sources[i] & MOVED_BIT) != 0u;
  if (!moved && uOwnToo == 0u) return;
  if (moved) {
    uint k = sources[i] & ~MOVED_BIT, s = 0u;
    while (s + 1u < uSenders && k >= senders[s + 1u].x) ++s;
    uint j = k - senders[s].x;
    if (j < senders[s].y || j >= senders[s].z) return;
    value = parcel[(senders[s].w + j - senders[s].y) * uStride + uOffset];
  } else if (i < uCount) {
    value = oldTexel(texelIn(sources[i], oldWidth()));
  }
#else
  if (i < uCount) {
    uint source = sources[i];
    value = (source & MOVED_BIT) != 0u
                ? parcel[(source & ~MOVED_BIT) * uStride + uOffset]
                : oldTexel(texelIn(source, oldWidth()));
  }
#endif
  store(texelIn(i, freshWidth()), value);
#endif
}
