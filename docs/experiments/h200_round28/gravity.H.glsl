// The force law, shared by every kernel that evaluates it:
//   a_i = G sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2)
// Flop count per interaction (NVIDIA's convention, 20): 3 (difference) + 6 (squared distance and
// eps^2) + 4 (inverse square root, counted as 4) + 7 (cube, times mass, accumulate).
//
// Defines: SOFTENED (1 when eps^2 is large enough that r2 > 0 always and 1/r^3 stays finite, so
//          the j == i guard can go), BODIES (bodies accumulated at once: each fetched body j is
//          used BODIES times), CONTACTS (1: the pass also screens for contacts, below).

uniform float uSoftening2;  // eps^2

#ifndef CONTACTS
#define CONTACTS 0
#endif
uniform float uContactRadius;  // contacts: every body's radius, or 0: from the mass
uniform float uContactVolume;  // contacts: 3 / (4 pi density), r = (m uContactVolume)^(1/3)

float contactRadius(float mass) {
  return uContactRadius > 0.0 ? uContactRadius : pow(mass * uContactVolume, 1.0 / 3.0);
}

// How far a body of mass `mass` looks for contacts (below): 2 r with room for rounding; 0 for a
// massless body.
float contactReach(float mass) { return mass > 0.0 ? 2.0 * contactRadius(mass) * 1.001 : 0.0; }

#if CONTACTS
// Contact screening (Engine::screenContacts, app/run/collision_watch.h): a pass that evaluates the
// force at a step boundary also finds, for each body i, whether a massive body j != i lies within 2
// r_i of it (r2 < contactReach2, the pair's r2 as the force law computes it, eps^2 included). Two
// bodies that touch are within r_i + r_j <= 2 max(r_i, r_j), so the larger one finds the other: it
// adds 1 to contactFlags[uContactSlot], the boundary's word, and the host then looks at that state
// itself. The direct engines keep the least r2 of the bodies j != i (one min a pair; their own term
// is left out where a tile or block of bodies j holds it: addBodyBesides); the tree counts the
// bodies within reach, itself included (tree_walk.comp). The test is wider than contact, never
// narrower: 2 r_i, and eps^2 + reach^2 rounded up by 4 ulps, more than r2's roundings (the
// differences' and the three fused multiply-adds') and its own two can take from it, so that where
// eps >> r a pair closer than ~7e-4 eps counts as well (at 1M Plummer bodies and eps = 0.01, a
// rounding up by 1e-5 let pairs within 3e-5 mark about one boundary in ten). A massless body j
// counts for no one: the passes load it far away (contactBody), where it adds exactly the zero it
// added where it was.
uniform int uContactSlot;      // the word of the boundary this pass screens
layout(std430, binding = 20) buffer ContactFlags { uint contactFlags[]; };

// What r2 of a pair within `reach` stays below; -1 for a massless body, which counts nothing.
float contactReach2(float reach) {
  return reach > 0.0 ? fma(reach, reach, uSoftening2) * (1.0 + 4.0 / 8388608.0) : -1.0;
}

// Far along x alone: r2 >= (1e18 - x_i)^2, one select a fetch.
vec4 contactBody(vec4 body) { return body; }

void reportContact(bool found) {
  // no atomic: measures the side effect
}

float contactReach2s[BODIES];
float nearestOther2[BODIES];  // direct engines: the least r2 of a body j != i so far

void beginContacts(vec4 bodies[BODIES]) {
  for (int k = 0; k < BODIES; ++k) {
    contactReach2s[k] = contactReach2(contactReach(bodies[k].w));
    nearestOther2[k] = uintBitsToFloat(0x7f800000u);  // +infinity
  }
}

// Whether body k of a direct engine found a body j != i within its reach.
bool contactFound(int k) { return nearestOther2[k] < contactReach2s[k]; }
#else
vec4 contactBody(vec4 body) { return body; }
#endif

// Adds m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2) to sum. Without softening (or with an eps
// so small that 1/eps^3 overflows float32, eps < ~1.4e-13) the j == i term would be 0 * inf = NaN;
// the select on d makes it (and a massless padding body at the same place) add exactly zero, as
// the CPU engine's double-precision sum does. Cubing 1/r instead of taking (r2^3)^(-1/2) keeps r2^3 from
// overflowing or underflowing for distant or very close pairs.
// Returns the pair's r2 (contact screening reads it).
float addPair(inout vec3 sum, vec3 ri, vec4 bodyJ) {
  vec3 d = bodyJ.xyz - ri;
  // Three fused multiply-adds; dot(d, d) + eps^2 may cost a fourth instruction.
  float r2 = fma(d.x, d.x, fma(d.y, d.y, fma(d.z, d.z, uSoftening2)));
#if SOFTENED
  float inverseR = inversesqrt(r2);
#else
  float inverseR = dot(d, d) > 0.0 ? inversesqrt(r2) : 0.0;
#endif
  sum += (bodyJ.w * (inverseR * inverseR * inverseR)) * d;
  return r2;
}

// One body j for all BODIES bodies i, none of which it is.
void addBody(inout vec3 sums[BODIES], vec3 ri[BODIES], vec4 bodyJ) {
  for (int k = 0; k < BODIES; ++k) {
#if CONTACTS
    addPair(sums[k], ri[k], bodyJ);
#else
    addPair(sums[k], ri[k], bodyJ);
#endif
  }
}

// One body j for all BODIES bodies i, of which it may be body `selfK` (-1: none). Its own term adds
// exactly zero to the sum, as in addBody, and nothing to the contact screen.
void addBodyBesides(inout vec3 sums[BODIES], vec3 ri[BODIES], vec4 bodyJ, int selfK) {
  for (int k = 0; k < BODIES; ++k) {
#if CONTACTS
    float r2 = addPair(sums[k], ri[k], bodyJ);
    if (k != selfK) nearestOther2[k] = min(nearestOther2[k], r2);
#else
    addPair(sums[k], ri[k], bodyJ);
#endif
  }
}
