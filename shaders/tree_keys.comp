// Space-filling-curve keys: the key of each body's cell on a 2^21 grid over the bounding cube (63
// bits, held in a uvec2: .x bits 32..62, .y bits 0..31), and its body index as the value.
// The curve is Hilbert's (CURVE_HILBERT 1, the default) or Morton's (0). Both make every prefix of
// the key a cell whose binary halves are split by a plane, which the radix tree needs; Hilbert's is
// also continuous, so a group of consecutive bodies never jumps across the box (with Morton keys a
// group crossing an octant boundary can span the whole box, and its lists grow with it).
// Keys only order the bodies: cells' boxes and moments come from the bodies themselves, so a key
// that rounds into a neighbouring grid cell costs tree quality, never correctness. Bodies with
// equal keys (all at one point, or closer than a grid cell) stay in index order, and the tree
// splits them by index. The same pass counts the first radix digit (bits 0..7) of each block, as
// radix_histogram.comp does for the later passes.
// Files before this one: workgroup.glsl, group_rows.glsl, body_layout.glsl, tree_common.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;  // SORT_THREADS

uniform sampler2D uPositionMass;
uniform uint uBodyCount;
uniform uint uBlockCount;

layout(std430, binding = B_BOUNDS) readonly buffer Bounds { uint bounds[6]; };
WRITE_ARRAY(B_KEYS_OUT, I_KEYS_OUT, KeysOut, uvec2, keysOut, uimage2D, rg32ui, setKeyOut)
layout(std430, binding = B_VALUES_OUT) writeonly buffer ValuesOut { uint valuesOut[]; };
layout(std430, binding = B_BLOCK_COUNTS) writeonly buffer BlockCounts { uint blockCounts[]; };

// The 10 low bits of v spread to every third bit (bit k to bit 3k).
uint spreadBits10(uint v) {
  v &= 0x3ffu;
  v = (v | (v << 16)) & 0x030000ffu;
  v = (v | (v << 8)) & 0x0300f00fu;
  v = (v | (v << 4)) & 0x030c30c3u;
  return (v | (v << 2)) & 0x09249249u;
}

// Morton key of grid cell q (21 bits an axis): key bit 3k + 2 is x's bit k, 3k + 1 y's, 3k z's.
// Bits 0..29 come from bits 0..9 of each axis, bits 30..32 from bit 10, bits 33..62 from 11..20.
uvec2 mortonKey(uvec3 q) {
  uint low = (spreadBits10(q.x) << 2) | (spreadBits10(q.y) << 1) | spreadBits10(q.z);
  uint middle = (((q.x >> 10) & 1u) << 2) | (((q.y >> 10) & 1u) << 1) | ((q.z >> 10) & 1u);
  uint high = (spreadBits10(q.x >> 11) << 2) | (spreadBits10(q.y >> 11) << 1) | spreadBits10(q.z >> 11);
  return uvec2((high << 1) | (middle >> 2), ((middle & 3u) << 30) | low);
}

// Hilbert's curve through Skilling's transform ("Programming the Hilbert curve", 2004): the grid
// coordinates become the "transposed" Hilbert index, whose bits interleave (x first) as Morton's do.
uvec3 hilbertTranspose(uvec3 q) {
  uint x[3] = uint[3](q.x, q.y, q.z);
  for (uint bit = 1u << 20; bit > 1u; bit >>= 1) {  // undo the excess work
    uint below = bit - 1u;
    for (int axis = 0; axis < 3; ++axis) {
      if ((x[axis] & bit) != 0u) {
        x[0] ^= below;  // invert
      } else {
        uint swapped = (x[0] ^ x[axis]) & below;  // exchange
        x[0] ^= swapped;
        x[axis] ^= swapped;
      }
    }
  }
  x[1] ^= x[0];  // Gray encode
  x[2] ^= x[1];
  uint flips = 0u;
  for (uint bit = 1u << 20; bit > 1u; bit >>= 1)
    if ((x[2] & bit) != 0u) flips ^= bit - 1u;
  return uvec3(x[0] ^ flips, x[1] ^ flips, x[2] ^ flips);
}

uvec2 keyOf(vec3 p, vec3 low, float inverseExtent) {
  vec3 cell = (p - low) * inverseExtent * 2097152.0;
  // NaN (a broken state) goes to cell 0; clamp keeps rounding at the top face on the grid.
  cell = mix(clamp(cell, 0.0, 2097151.0), vec3(0.0), isnan(cell));
#if CURVE_HILBERT
  return mortonKey(hilbertTranspose(uvec3(cell)));
#else
  return mortonKey(uvec3(cell));
#endif
}

void main() {
  uint block = linearGroupId();
  if (block >= uBlockCount) return;
  clearHistogram();
  vec3 low = vec3(floatFromOrdered(bounds[0]), floatFromOrdered(bounds[1]), floatFromOrdered(bounds[2]));
  vec3 high = vec3(floatFromOrdered(bounds[3]), floatFromOrdered(bounds[4]), floatFromOrdered(bounds[5]));
  float extent = max(max(high.x - low.x, high.y - low.y), high.z - low.z);
  // A point-like (or infinite) box gives every body key 0: still a valid, if flat, order.
  float inverseExtent = extent > 1e-30 && extent < 1e30 ? 1.0 / extent : 0.0;
  int width = textureSize(uPositionMass, 0).x;
  for (uint k = 0u; k < SORT_ITEMS; ++k) {
    uint i = sortItem(block, k);
    if (i >= uBodyCount) break;
    uvec2 key = keyOf(texelFetch(uPositionMass, texelOfBody(int(i), width), 0).xyz, low, inverseExtent);
    setKeyOut(i, key);
    valuesOut[i] = i;
    histogramAdd(digitOf(key, 0u));
  }
  finishHistogram();
  blockCounts[gl_LocalInvocationID.x * uBlockCount + block] = histogram[gl_LocalInvocationID.x];
}
