// Diagnostics reduced on the GPU in integers, so that their sums do not depend on the order of the
// bodies, on how work groups cut them, or (summed across ranks as integers) on the ranks.
//
// Each body gives twelve terms, formed in double from the float32 state as the CPU forms them (the
// order GpuDiagnostics reads): m v (xyz), m, m r x v (xyz), 1/2 m v^2, m r (xyz), and the
// potential's -1/2 m_i sum_{j != i} m_j / sqrt(r_ij^2 + eps^2), whose O(N^2) pairs are float32 (as
// the force is) added in double. Four kinds of pass (STAGE):
//   3 pair sums  each body's sum over the texels j of one chunk, added in texel order to what the
//                chunks before left (so every cut of the texels gives the same bits); the host
//                runs the chunks one after another, waiting for the GPU now and then. Short
//                chunks: llvmpipe stops an invocation's loops after 65535 iterations in all, and
//                NVIDIA's driver may drop work queued for seconds unwaited.
//   0 exponents  each body's terms; the largest binary exponent of each quantity's terms, by
//                integer atomic maxima (exact, so in any order)
//   1 body sums  each term as a 128-bit two's-complement integer in units of 2^-95 of the
//                power of two above its quantity's largest term (truncated below: 2^-42 of the largest term's
//                last bit), added in each work group
//   2 partials   the groups' sums added, until one remains
// Integer sums are associative: every order gives the same words. The host turns each into a double
// (rounded once) times its unit. Within a group the sums halve in shared memory with sequential
// addressing (workgroup.glsl's reduction), one quantity at a time.
//
// Defines: WORKGROUP_SIZE, STAGE. Files before this one: workgroup.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

const uint QUANTITIES = 12u;

uniform uint uCount;  // bodies (stages 0, 1) or input sums (2)
uniform uint uElementsPerInvocation;

// The largest biased exponent of each quantity's terms (2047: a term was not finite).
layout(std430, binding = 3) coherent buffer Exponents { uint exponents[QUANTITIES]; };

#if STAGE != 2
uniform sampler2D uPositionMass;  // the engine's state: body i at texel (i % width, i / width)
uniform sampler2D uVelocity;
uniform float uSoftening2;        // eps^2
uniform bool uPairPotential;      // false: the caller has the potential another way (a tree's)
layout(std430, binding = 2) buffer PairSums { double pairSums[]; };  // a body each

// 1 / sqrt(r^2 + eps^2), zero for a pair at distance 0 without softening: the force law's
// convention (shaders/gravity.glsl), so that both agree on what a state's energy is.
float inverseDistance(vec3 ri, vec3 rj) {
  vec3 d = rj - ri;
  float r2 = dot(d, d) + uSoftening2;
  return r2 > 0.0 ? inversesqrt(r2) : 0.0;
}
#endif

#if STAGE == 3
uniform uint uFirstTexel, uEndTexel;  // this chunk's texels j, in texel order
uniform bool uContinue;               // false: the first chunk, the sums start from 0

// `sum` plus m_j / sqrt(r_ij^2 + eps^2) over the chunk's texels. Like the force, it runs over
// every texel: padding texels are massless and add exactly zero. Body i itself is left out by its
// index, because with eps > 0 its own term would not vanish.
double pairSum(uint i, vec3 ri, double sum) {
  int width = textureSize(uPositionMass, 0).x;
  for (uint j = uFirstTexel; j < uEndTexel; ++j) {
    vec4 other = texelFetch(uPositionMass, ivec2(int(j % uint(width)), int(j / uint(width))), 0);
    if (j != i) sum += double(other.w * inverseDistance(ri, other.xyz));
  }
  return sum;
}

void main() {
  int width = textureSize(uPositionMass, 0).x;
  for (uint k = 0u; k < uElementsPerInvocation; ++k) {
    uint i = shareElement(gl_WorkGroupID.x, uElementsPerInvocation, k);
    if (i >= uCount) break;
    vec3 ri = texelFetch(uPositionMass, ivec2(int(i) % width, int(i) / width), 0).xyz;
    pairSums[i] = pairSum(i, ri, uContinue ? pairSums[i] : 0.0);
  }
}
#else
#if STAGE < 2
// Body i's terms, its potential term from the pair sums stage 3 left.
void termsOf(uint i, out double terms[QUANTITIES]) {
  int width = textureSize(uPositionMass, 0).x;
  ivec2 texel = ivec2(int(i) % width, int(i) / width);
  vec4 positionMass = texelFetch(uPositionMass, texel, 0);
  dvec3 r = dvec3(positionMass.xyz);
  dvec3 v = dvec3(texelFetch(uVelocity, texel, 0).xyz);
  double m = double(positionMass.w);
  dvec3 momentum = m * v, angular = m * cross(r, v), weighted = m * r;
  double potential = uPairPotential ? -0.5 * m * pairSums[i] : 0.0;
  terms = double[QUANTITIES](momentum.x, momentum.y, momentum.z, m, angular.x, angular.y,
                             angular.z, 0.5 * m * dot(v, v), weighted.x, weighted.y, weighted.z,
                             potential);
}
#endif

uint biasedExponent(double value) { return (unpackDouble2x32(value).y >> 20) & 0x7ffu; }

#if STAGE == 0
shared uint groupExponents[QUANTITIES];

void main() {
  uint local = gl_LocalInvocationID.x;
  for (uint q = local; q < QUANTITIES; q += uint(WORKGROUP_SIZE)) groupExponents[q] = 0u;
  memoryBarrierShared();
  barrier();
  for (uint k = 0u; k < uElementsPerInvocation; ++k) {
    uint i = shareElement(gl_WorkGroupID.x, uElementsPerInvocation, k);
    if (i >= uCount) break;
    double terms[QUANTITIES];
    termsOf(i, terms);
    for (uint q = 0u; q < QUANTITIES; ++q) atomicMax(groupExponents[q], biasedExponent(terms[q]));
  }
  memoryBarrierShared();
  barrier();
  for (uint q = local; q < QUANTITIES; q += uint(WORKGROUP_SIZE))
    atomicMax(exponents[q], groupExponents[q]);
}
#else
// ---- 128-bit integers: uvec4, x the lowest word.

// Carries by comparison, not uaddCarry: on the H200 (driver 580.159.04) this shader's sums came out
// ~1e-9 off with uaddCarry, unrolled or not, and exact with comparisons (round 33).
uvec4 added(uvec4 a, uvec4 b) {
  uvec4 sum = a + b;
  uvec4 carry = uvec4(lessThan(sum, a));  // each word's own carry
  sum.y += carry.x;
  carry.y += uint(sum.y < carry.x);  // at most one of the two is set
  sum.z += carry.y;
  carry.z += uint(sum.z < carry.y);
  sum.w += carry.z;
  return sum;
}

uvec4 negated(uvec4 a) { return added(~a, uvec4(1u, 0u, 0u, 0u)); }

// m (53 bits: x the low word) times 2^shift, shift in [-52, 42]; bits below 2^0 dropped.
uvec4 shifted(uvec2 m, int shift) {
  if (shift < 0) {
    uint s = uint(-shift);
    if (s >= 32u) return uvec4(m.y >> (s - 32u), 0u, 0u, 0u);
    return uvec4((m.x >> s) | (m.y << (32u - s)), m.y >> s, 0u, 0u);
  }
  uint b = uint(shift) % 32u;
  uvec3 w = b == 0u ? uvec3(m, 0u) : uvec3(m.x << b, (m.y << b) | (m.x >> (32u - b)), m.y >> (32u - b));
  return shift >= 32 ? uvec4(0u, w) : uvec4(w, 0u);
}

// `value` in units of 2^-95 of 2^(largest - 1022), largest its quantity's largest biased exponent:
// the largest term's 53 bits move up by 42 (below 2^95, so 2^32 terms add without overflow).
uvec4 fixedOf(double value, uint largest) {
  uvec2 bits = unpackDouble2x32(value);  // x the low word
  uint e = (bits.y >> 20) & 0x7ffu;
  uvec2 m = uvec2(bits.x, (bits.y & 0xfffffu) | (e != 0u ? 0x100000u : 0u));
  int shift = 42 - (int(max(largest, 1u)) - int(max(e, 1u)));
  if (shift <= -53 || largest == 2047u) return uvec4(0u);
  uvec4 magnitude = shifted(m, shift);
  return (bits.y >> 31) != 0u ? negated(magnitude) : magnitude;
}

layout(std430, binding = 0) writeonly buffer OutputSums { uvec4 outputSums[]; };
#if STAGE == 2
layout(std430, binding = 1) readonly buffer InputSums { uvec4 inputSums[]; };
#endif

void addElement(uint index, inout uvec4 sums[QUANTITIES]) {
#if STAGE == 1
  double terms[QUANTITIES];
  termsOf(index, terms);
  for (uint q = 0u; q < QUANTITIES; ++q) sums[q] = added(sums[q], fixedOf(terms[q], exponents[q]));
#else
  for (uint q = 0u; q < QUANTITIES; ++q) sums[q] = added(sums[q], inputSums[index * QUANTITIES + q]);
#endif
}

shared uvec4 groupSums[WORKGROUP_SIZE];

void addSums(uint into, uint from) { groupSums[into] = added(groupSums[into], groupSums[from]); }
WORKGROUP_REDUCE(sumGroup, addSums)

void main() {
  uint local = gl_LocalInvocationID.x;
  uvec4 sums[QUANTITIES];
  for (uint q = 0u; q < QUANTITIES; ++q) sums[q] = uvec4(0u);
  for (uint k = 0u; k < uElementsPerInvocation; ++k) {
    uint index = shareElement(gl_WorkGroupID.x, uElementsPerInvocation, k);
    if (index < uCount) addElement(index, sums);
  }
  for (uint q = 0u; q < QUANTITIES; ++q) {
    groupSums[local] = sums[q];
    sumGroup();
    if (local == 0u) outputSums[gl_WorkGroupID.x * QUANTITIES + q] = groupSums[0];
    barrier();
  }
}
#endif
#endif  // STAGE != 3
