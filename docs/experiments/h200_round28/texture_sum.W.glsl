// Sums over the texels of a position + mass texture, for BODIES bodies at once: those at texels
// own + (k, 0), k < BODIES, which CONTACTS's screen leaves out of their own (gravity.glsl). Padding
// texels hold massless bodies, so they add exactly zero and need no bounds check. With CONTACTS
// each fetched body goes through contactBody (gravity.glsl).
//
// Defines: UNROLL_X, UNROLL_Y: the texel loop runs over blocks of UNROLL_X x UNROLL_Y texels whose
//          inner loops have constant bounds (unrolled by the compiler), as in the paper's table 3;
//          the columns and rows left over at the right and bottom edges are summed after.

// The body at `texel`, which may be one of the bodies i.
void addTexel(inout vec3 sums[BODIES], vec3 ri[BODIES], sampler2D positionMass, ivec2 texel,
              ivec2 own) {
  addBodyBesides(sums, ri, contactBody(texelFetch(positionMass, texel, 0)),
                 texel.y == own.y ? texel.x - own.x : -1);
}

void addTexels(inout vec3 sums[BODIES], vec3 ri[BODIES], sampler2D positionMass,
               ivec2 begin, ivec2 end, ivec2 own) {
  for (int y = begin.y; y < end.y; ++y)
    for (int x = begin.x; x < end.x; ++x) addTexel(sums, ri, positionMass, ivec2(x, y), own);
}

// The blocks of texels of row block `y` from column `begin` to `end` (multiples of UNROLL_X), none
// of which holds a body i.
void addBlocks(inout vec3 sums[BODIES], vec3 ri[BODIES], sampler2D positionMass, int y, int begin,
               int end) {
  for (int x = begin; x < end; x += UNROLL_X)
    for (int by = 0; by < UNROLL_Y; ++by)
      for (int bx = 0; bx < UNROLL_X; ++bx)
        addBody(sums, ri, contactBody(texelFetch(positionMass, ivec2(x + bx, y + by), 0)));
}

// The same where they may hold bodies i: each texel is tested.
void addBlocksBesides(inout vec3 sums[BODIES], vec3 ri[BODIES], sampler2D positionMass, int y,
                      int begin, int end, ivec2 own) {
  for (int x = begin; x < end; x += UNROLL_X)
    for (int by = 0; by < UNROLL_Y; ++by)
      for (int bx = 0; bx < UNROLL_X; ++bx)
        addTexel(sums, ri, positionMass, ivec2(x + bx, y + by), own);
}

// Row block `y` of the blocked part, `blockedWidth` columns. With CONTACTS, the texels that may hold
// the fragment's bodies are tested in a window about them alone: the row blocks that meet its band
// of 8 rows (own.y rounded down to a multiple of 8), in its 32 columns (own.x rounded down to a
// multiple of 32, which holds the BODIES texels from own.x). Band and window are aligned, so the
// fragments of a warp (2x2 quads, a few rows and columns) take the same branch and loop bounds,
// and every other block is the plain one.
void addRowBlock(inout vec3 sums[BODIES], vec3 ri[BODIES], sampler2D positionMass, int y,
                 int blockedWidth, ivec2 own) {
#if CONTACTS
  int band = own.y & ~7;
  if (y < band + 8 && y + UNROLL_Y > band) {
    int begin = min(own.x & ~31, blockedWidth), end = min(begin + 32, blockedWidth);
    addBlocks(sums, ri, positionMass, y, 0, begin);
    addBlocksBesides(sums, ri, positionMass, y, begin, end, own);
    addBlocks(sums, ri, positionMass, y, end, blockedWidth);
    return;
  }
#endif
  addBlocks(sums, ri, positionMass, y, 0, blockedWidth);
}

// Every texel of rows [firstRow, endRow).
void sumOverRows(inout vec3 sums[BODIES], vec3 ri[BODIES], sampler2D positionMass, int firstRow,
                 int endRow, ivec2 own) {
  int width = textureSize(positionMass, 0).x;
  ivec2 blocked = ivec2(width / UNROLL_X * UNROLL_X, firstRow + (endRow - firstRow) / UNROLL_Y * UNROLL_Y);
  for (int y = firstRow; y < blocked.y; y += UNROLL_Y)
    addRowBlock(sums, ri, positionMass, y, blocked.x, own);
  addTexels(sums, ri, positionMass, ivec2(blocked.x, firstRow), ivec2(width, endRow), own);  // right edge
  addTexels(sums, ri, positionMass, ivec2(0, blocked.y), ivec2(blocked.x, endRow), own);     // bottom
}
