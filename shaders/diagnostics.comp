// Diagnostics reduced on the GPU, the sums over bodies exact, so that they do not depend on the
// order of the bodies nor on how ranks split them (util/exact_sum.h is the host's side).
//
// Each quantity q is a sum of one term a body, formed in double from the float32 state as the CPU
// forms it: m v, m, m r x v, 1/2 m v^2, m r, and -1/2 m_i phi_i, where phi_i = sum_{j != i} m_j /
// sqrt(r_ij^2 + eps^2) adds its pairs (float32, as the force evaluates them) in double in the
// order of the texels (the POTENTIALS pass, into a buffer). Three more kinds of pass:
// - SCALES: the largest exponent field of each quantity's terms (integer maxima: any order gives
//   them);
// - DIGITS: each term's 53-bit significand, placed by its exponent field and uOffset[q] (the
//   host's choice from the largest, so that the largest term over the count of terms sits below
//   2^(DIGITS DIGIT_BITS)), is cut into DIGITS integer digits of DIGIT_BITS bits, its bits below
//   2^0 dropped; the digits are summed as doubles, integers below 2^53 that add exactly in any
//   order. Only integer operations touch a term's bits: no frexp, ldexp or rounding of its value.
// - the partial sums' pass adds the digits of the previous pass's groups, until one sum remains.
// A group's sum is carried (each digit but the first into [0, 2^DIGIT_BITS)) before it is written,
// so sums stay far below 2^53. The host weights the final digits and adds them exactly.
//
// Defines: WORKGROUP_SIZE, PASS (0: scales, 1: digits, 2: partial sums, 3: potentials). Files
// before this one: workgroup.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

#define QUANTITIES 12  // matches kQuantities in src/diagnostics/gpu_diagnostics.cpp
#define DIGITS 5
#define DIGIT_BITS 24
#define DIGIT_MASK 0xffffffu
#define POTENTIAL_QUANTITY 11

// Matches GpuDigits in src/diagnostics/gpu_diagnostics.cpp: quantity q's digit k at q DIGITS + k,
// the first the most significant.
struct Digits {
  double digit[QUANTITIES * DIGITS];
};

layout(std430, binding = 0) writeonly buffer OutputDigits { Digits outputDigits[]; };
layout(std430, binding = 2) buffer Scales { uint scales[QUANTITIES]; };  // exponent fields
layout(std430, binding = 3) buffer Potentials { double potentials[]; };  // phi_i, body i at i

uniform uint uCount;  // bodies, or input sums (PASS 2)
uniform uint uElementsPerInvocation;

#if PASS != 2
uniform sampler2D uPositionMass;  // the engine's state: body i at texel (i % width, i / width)
uniform sampler2D uVelocity;
uniform float uSoftening2;        // eps^2
uniform bool uPairPotential;      // false: the caller has the potential another way (a tree's)

ivec2 texelOf(uint i, int width) { return ivec2(int(i) % width, int(i) / width); }

// 1 / sqrt(r^2 + eps^2), zero for a pair at distance 0 without softening: the force law's
// convention (shaders/gravity.glsl), so that both agree on what a state's energy is.
float inverseDistance(vec3 ri, vec3 rj) {
  vec3 d = rj - ri;
  float r2 = dot(d, d) + uSoftening2;
  return r2 > 0.0 ? inversesqrt(r2) : 0.0;
}
#endif

#if PASS == 3
// phi_i: like the force, over every texel (padding texels are massless and add exactly zero);
// body i itself left out by its index, because with eps > 0 its own term would not vanish.
double potentialSum(uint i, vec3 ri) {
  ivec2 size = textureSize(uPositionMass, 0);
  double sum = 0.0;
  uint j = 0u;
  for (int y = 0; y < size.y; ++y) {
    for (int x = 0; x < size.x; ++x, ++j) {
      vec4 other = texelFetch(uPositionMass, ivec2(x, y), 0);
      if (j != i) sum += double(other.w * inverseDistance(ri, other.xyz));
    }
  }
  return sum;
}

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= uCount) return;
  vec4 body = texelFetch(uPositionMass, texelOf(i, textureSize(uPositionMass, 0).x), 0);
  potentials[i] = potentialSum(i, body.xyz);
}
#else

#if PASS != 2
// Body i's term of each quantity.
void bodyTerms(uint i, out double terms[QUANTITIES]) {
  ivec2 texel = texelOf(i, textureSize(uPositionMass, 0).x);
  vec4 positionMass = texelFetch(uPositionMass, texel, 0);
  dvec3 r = dvec3(positionMass.xyz);
  dvec3 v = dvec3(texelFetch(uVelocity, texel, 0).xyz);
  double m = double(positionMass.w);
  dvec3 momentum = m * v, angularMomentum = m * cross(r, v), weightedPosition = m * r;
  double potential = uPairPotential ? -0.5 * m * potentials[i] : 0.0LF;
  terms = double[QUANTITIES](momentum.x, momentum.y, momentum.z, m, angularMomentum.x,
                             angularMomentum.y, angularMomentum.z, 0.5 * m * dot(v, v),
                             weightedPosition.x, weightedPosition.y, weightedPosition.z, potential);
}

// The biased exponent field of a double: 0 for zero, 1 for a subnormal (whose significand has no
// leading 1), 2047 for an infinity or NaN.
uint exponentField(uvec2 bits) {
  uint field = (bits.y >> 20) & 0x7ffu;
  return field == 0u && (bits.x != 0u || (bits.y & 0xfffffu) != 0u) ? 1u : field;
}
#endif

#if PASS == 0
shared uint groupScales[WORKGROUP_SIZE * QUANTITIES];

void raiseScale(uint into, uint from) {
  for (int q = 0; q < QUANTITIES; ++q)
    groupScales[into * QUANTITIES + q] =
        max(groupScales[into * QUANTITIES + q], groupScales[from * QUANTITIES + q]);
}
WORKGROUP_REDUCE(largestScales, raiseScale)

void main() {
  uint local = gl_LocalInvocationID.x;
  for (int q = 0; q < QUANTITIES; ++q) groupScales[local * QUANTITIES + q] = 0u;
  for (uint k = 0u; k < uElementsPerInvocation; ++k) {
    uint index = shareElement(gl_WorkGroupID.x, uElementsPerInvocation, k);
    if (index >= uCount) continue;
    double terms[QUANTITIES];
    bodyTerms(index, terms);
    for (int q = 0; q < QUANTITIES; ++q) {
      uint field = exponentField(unpackDouble2x32(terms[q]));
      if (field < 2047u)  // not infinite or NaN: the digits' pass passes those on whole
        groupScales[local * QUANTITIES + q] = max(groupScales[local * QUANTITIES + q], field);
    }
  }
  largestScales();
  for (uint q = local; q < uint(QUANTITIES); q += uint(WORKGROUP_SIZE))
    atomicMax(scales[q], groupScales[q]);  // entry 0's
}
#else
shared Digits groupDigits[WORKGROUP_SIZE];

void addDigits(uint into, uint from) {
  for (int d = 0; d < QUANTITIES * DIGITS; ++d)
    groupDigits[into].digit[d] += groupDigits[from].digit[d];
}
WORKGROUP_REDUCE(sumGroup, addDigits)

// Digits 1 .. DIGITS - 1 into [0, 2^DIGIT_BITS), the rest carried into digit 0: integers times
// powers of two and their floors, exact.
void carryDigits(inout Digits sum) {
  for (int q = 0; q < QUANTITIES; ++q) {
    for (int k = DIGITS - 1; k > 0; --k) {
      double up = floor(sum.digit[q * DIGITS + k] * 5.9604644775390625e-8LF);  // 2^-24
      sum.digit[q * DIGITS + k] -= up * 16777216.0LF;
      sum.digit[q * DIGITS + k - 1] += up;
    }
  }
}

#if PASS == 1
uniform int uOffset[QUANTITIES];  // a term's lowest significand bit sits at 2^(field + uOffset[q])

// Bits [from, from + DIGIT_BITS) of the 53-bit significand (high, low); those outside it are 0.
uint significandBits(uint high, uint low, int from) {
  if (from >= 53 || from <= -DIGIT_BITS) return 0u;
  if (from < 0) return (low << uint(-from)) & DIGIT_MASK;
  if (from == 0) return low & DIGIT_MASK;
  if (from < 32) return ((low >> uint(from)) | (high << uint(32 - from))) & DIGIT_MASK;
  return (high >> uint(from - 32)) & DIGIT_MASK;
}

// Adds quantity q's term to the digits of entry `local` of the group's sums. A term that is not
// finite goes into the first digit whole, where the host finds it.
void addTerm(uint local, int q, double term) {
  uvec2 bits = unpackDouble2x32(term);
  uint field = exponentField(bits);
  if (field == 0u) return;
  if (field == 2047u) {
    groupDigits[local].digit[q * DIGITS] += term;
    return;
  }
  uint high = (bits.y & 0xfffffu) | (((bits.y >> 20) & 0x7ffu) != 0u ? 0x100000u : 0u);
  int lowest = int(field) + uOffset[q];  // the significand's bit 0, in the sum's bits
  for (int k = 0; k < DIGITS; ++k) {
    double digit = double(significandBits(high, bits.x, (DIGITS - 1 - k) * DIGIT_BITS - lowest));
    groupDigits[local].digit[q * DIGITS + k] += (bits.y >> 31) != 0u ? -digit : digit;
  }
}

void addElement(uint local, uint i) {
  double terms[QUANTITIES];
  bodyTerms(i, terms);
  for (int q = 0; q < QUANTITIES; ++q) addTerm(local, q, terms[q]);
}
#else
layout(std430, binding = 1) readonly buffer InputDigits { Digits inputDigits[]; };

void addElement(uint local, uint i) {
  for (int d = 0; d < QUANTITIES * DIGITS; ++d)
    groupDigits[local].digit[d] += inputDigits[i].digit[d];
}
#endif

void main() {
  uint local = gl_LocalInvocationID.x;
  for (int d = 0; d < QUANTITIES * DIGITS; ++d) groupDigits[local].digit[d] = 0.0LF;
  for (uint k = 0u; k < uElementsPerInvocation; ++k) {
    uint index = shareElement(gl_WorkGroupID.x, uElementsPerInvocation, k);
    if (index < uCount) addElement(local, index);
  }
  sumGroup();
  if (local == 0u) {
    Digits sum = groupDigits[0];
    carryDigits(sum);
    outputDigits[gl_WorkGroupID.x] = sum;
  }
}
#endif
#endif
