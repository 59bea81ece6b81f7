// Sums over the texels of a position + mass texture, for BODIES bodies at once. Padding texels
// hold massless bodies, so they add exactly zero and need no bounds check. With CONTACTS each
// fetched body goes through contactBody (gravity.glsl).
//
// Defines: UNROLL_X, UNROLL_Y: the texel loop runs over blocks of UNROLL_X x UNROLL_Y texels whose
//          inner loops have constant bounds (unrolled by the compiler), as in the paper's table 3;
//          the columns and rows left over at the right and bottom edges are summed after.

void addTexels(inout vec3 sums[BODIES], vec3 ri[BODIES], sampler2D positionMass,
               ivec2 begin, ivec2 end) {
  for (int y = begin.y; y < end.y; ++y)
    for (int x = begin.x; x < end.x; ++x)
      addBody(sums, ri, contactBody(texelFetch(positionMass, ivec2(x, y), 0)));
}

// Every texel of rows [firstRow, endRow).
void sumOverRows(inout vec3 sums[BODIES], vec3 ri[BODIES], sampler2D positionMass, int firstRow,
                 int endRow) {
  int width = textureSize(positionMass, 0).x;
  ivec2 blocked = ivec2(width / UNROLL_X * UNROLL_X, firstRow + (endRow - firstRow) / UNROLL_Y * UNROLL_Y);
  for (int y = firstRow; y < blocked.y; y += UNROLL_Y)
    for (int x = 0; x < blocked.x; x += UNROLL_X)
      for (int by = 0; by < UNROLL_Y; ++by)
        for (int bx = 0; bx < UNROLL_X; ++bx)
          addBody(sums, ri, contactBody(texelFetch(positionMass, ivec2(x + bx, y + by), 0)));
  addTexels(sums, ri, positionMass, ivec2(blocked.x, firstRow), ivec2(width, endRow));  // right edge
  addTexels(sums, ri, positionMass, ivec2(0, blocked.y), ivec2(blocked.x, endRow));     // bottom
}
