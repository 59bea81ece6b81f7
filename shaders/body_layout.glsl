// Where body i lives in the state textures: row by row, texel (i % width, i / width).
ivec2 texelOfBody(int index, int width) { return ivec2(index % width, index / width); }
