// The force law, shared by every kernel that evaluates it:
//   a_i = G sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2)
// Flop count per interaction (NVIDIA's convention, 20): 3 (difference) + 6 (squared distance and
// eps^2) + 4 (inverse square root, counted as 4) + 7 (cube, times mass, accumulate).

uniform float uSoftening2;  // eps^2

// m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2). The j == i term has r2 == 0 when eps == 0;
// the select makes it (and a massless padding body at the same place) contribute exactly zero
// instead of 0 * inf = NaN. Cubing 1/r instead of taking (r2^3)^(-1/2) keeps r2^3 from
// overflowing or underflowing for distant or very close pairs.
vec3 pairAcceleration(vec3 ri, vec4 bodyJ) {
  vec3 d = bodyJ.xyz - ri;
  float r2 = dot(d, d) + uSoftening2;
  float inverseR = r2 > 0.0 ? inversesqrt(r2) : 0.0;
  return (bodyJ.w * inverseR * inverseR * inverseR) * d;
}

// The sum over every texel of a position + mass texture. Padding texels hold massless bodies, so
// they add exactly zero and the loop needs no bounds check.
vec3 accelerationFromTexture(sampler2D positionMass, vec3 ri) {
  ivec2 size = textureSize(positionMass, 0);
  vec3 sum = vec3(0.0);
  for (int y = 0; y < size.y; ++y)
    for (int x = 0; x < size.x; ++x)
      sum += pairAcceleration(ri, texelFetch(positionMass, ivec2(x, y), 0));
  return sum;
}
