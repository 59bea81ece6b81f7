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

// The block of texels from `corner`. Only the few blocks that hold bodies i test each texel for
// them: `ownColumn` is own.x in the row of blocks that holds them, else far left of every block,
// and the block holds them where corner.x - BODIES < ownColumn < corner.x + UNROLL_X (one add and
// one compare, as unsigned).
void addBlock(inout vec3 sums[BODIES], vec3 ri[BODIES], sampler2D positionMass, ivec2 corner,
              ivec2 own, int ownColumn) {
#if CONTACTS
  if (uint(ownColumn + (BODIES - 1) - corner.x) < uint(UNROLL_X + BODIES - 1)) {
    for (int by = 0; by < UNROLL_Y; ++by)
      for (int bx = 0; bx < UNROLL_X; ++bx)
        addTexel(sums, ri, positionMass, corner + ivec2(bx, by), own);
    return;
  }
#endif
  for (int by = 0; by < UNROLL_Y; ++by)
    for (int bx = 0; bx < UNROLL_X; ++bx)
      addBody(sums, ri, contactBody(texelFetch(positionMass, corner + ivec2(bx, by), 0)));
}

// Every texel of rows [firstRow, endRow).
void sumOverRows(inout vec3 sums[BODIES], vec3 ri[BODIES], sampler2D positionMass, int firstRow,
                 int endRow, ivec2 own) {
  int width = textureSize(positionMass, 0).x;
  ivec2 blocked = ivec2(width / UNROLL_X * UNROLL_X, firstRow + (endRow - firstRow) / UNROLL_Y * UNROLL_Y);
  for (int y = firstRow; y < blocked.y; y += UNROLL_Y) {
    int ownColumn = own.y >= y && own.y < y + UNROLL_Y ? own.x : -(1 << 30);
    for (int x = 0; x < blocked.x; x += UNROLL_X)
      addBlock(sums, ri, positionMass, ivec2(x, y), own, ownColumn);
  }
  addTexels(sums, ri, positionMass, ivec2(blocked.x, firstRow), ivec2(width, endRow), own);  // right edge
  addTexels(sums, ri, positionMass, ivec2(0, blocked.y), ivec2(blocked.x, endRow), own);     // bottom
}
