// The force law, shared by every kernel that evaluates it:
//   a_i = G sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2)
// Flop count per interaction (NVIDIA's convention, 20): 3 (difference) + 6 (squared distance and
// eps^2) + 4 (inverse square root, counted as 4) + 7 (cube, times mass, accumulate).
//
// Defines: SOFTENED (1 when eps^2 is large enough that r2 > 0 always and 1/r^3 stays finite, so
//          the j == i guard can go), BODIES (bodies accumulated at once: each fetched body j is
//          used BODIES times).

uniform float uSoftening2;  // eps^2

// Adds m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2) to sum. Without softening (or with an eps
// so small that 1/eps^3 overflows float32, eps < ~1.4e-13) the j == i term would be 0 * inf = NaN;
// the select on d makes it (and a massless padding body at the same place) add exactly zero, as
// the CPU engine's double-precision sum does. Cubing 1/r instead of taking (r2^3)^(-1/2) keeps r2^3 from
// overflowing or underflowing for distant or very close pairs.
void addPair(inout vec3 sum, vec3 ri, vec4 bodyJ) {
  vec3 d = bodyJ.xyz - ri;
  // Three fused multiply-adds; dot(d, d) + eps^2 may cost a fourth instruction.
  float r2 = fma(d.x, d.x, fma(d.y, d.y, fma(d.z, d.z, uSoftening2)));
#if SOFTENED
  float inverseR = inversesqrt(r2);
#else
  float inverseR = dot(d, d) > 0.0 ? inversesqrt(r2) : 0.0;
#endif
  sum += (bodyJ.w * (inverseR * inverseR * inverseR)) * d;
}

// One body j for all BODIES bodies i.
void addBody(inout vec3 sums[BODIES], vec3 ri[BODIES], vec4 bodyJ) {
  for (int k = 0; k < BODIES; ++k) addPair(sums[k], ri[k], bodyJ);
}
