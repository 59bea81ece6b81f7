// Diagnostics reduced on the GPU, summed exactly, so that they do not depend on the order of the
// bodies nor on how ranks split them (util/exact_sum.h is the host's side).
//
// Each quantity q is a sum of terms formed in double from the float32 state, as the CPU forms
// them: m v, m, m r x v, 1/2 m v^2, m r, one term a body; and the potential's pair terms
// m_i (m_j / sqrt(r_ij^2 + eps^2)), the latter factor in float32 as the force evaluates it, one a
// pair. Three kinds of pass:
// - SCALES: the largest exponent of each quantity's terms (integer maxima: any order gives them);
// - DIGITS: each term, scaled by 2^uShift[q] (the host's choice from those exponents, so that a
//   term stays below 2^DIGITS*DIGIT_BITS over the terms' count), is cut into DIGITS integer digits
//   of DIGIT_BITS bits (its bits below 2^0 dropped), and the digits are summed: integers held in
//   doubles below 2^53 add exactly, in any order;
// - the partial sums' pass adds the digits of the previous pass's groups, until one sum remains.
// Digits are carried (each but the first into [0, 2^DIGIT_BITS)) whenever an invocation has added
// its share, so sums stay far below 2^53. The host weights the final digits by 2^-uShift[q] and
// adds them exactly.
//
// Defines: WORKGROUP_SIZE, PASS (0: scales, 1: digits, 2: partial sums). Files before this one:
// workgroup.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

#define QUANTITIES 12  // matches kQuantities in src/diagnostics/gpu_diagnostics.cpp
#define DIGITS 5
#define DIGIT_BITS 24
#define PAIR_QUANTITY 11
#define EXPONENT_BIAS 1100  // a biased exponent is 0 for a quantity with no nonzero term

// Matches GpuDigits in src/diagnostics/gpu_diagnostics.cpp: quantity q's digit k at q DIGITS + k,
// the first the most significant.
struct Digits {
  double digit[QUANTITIES * DIGITS];
};

layout(std430, binding = 0) writeonly buffer OutputDigits { Digits outputDigits[]; };
layout(std430, binding = 2) buffer Scales { uint scales[QUANTITIES]; };  // biased exponents

uniform uint uCount;  // bodies (SCALES, DIGITS) or input sums
uniform uint uElementsPerInvocation;

// 2^((DIGITS - 1 - k) DIGIT_BITS), digit k's weight, to the power `sign` (1 or -1): scaling by a
// power of two is exact, where a division need not be.
double digitWeight(int k, int sign) { return ldexp(1.0LF, sign * (DIGITS - 1 - k) * DIGIT_BITS); }

// Digits 1 .. DIGITS - 1 into [0, 2^DIGIT_BITS), the rest carried into digit 0: exact.
void carryDigits(inout Digits sum) {
  for (int q = 0; q < QUANTITIES; ++q) {
    for (int k = DIGITS - 1; k > 0; --k) {
      double up = floor(sum.digit[q * DIGITS + k] * ldexp(1.0LF, -DIGIT_BITS));
      sum.digit[q * DIGITS + k] -= up * ldexp(1.0LF, DIGIT_BITS);
      sum.digit[q * DIGITS + k - 1] += up;
    }
  }
}

#if PASS != 2
uniform sampler2D uPositionMass;  // the engine's state: body i at texel (i % width, i / width)
uniform sampler2D uVelocity;
uniform float uSoftening2;        // eps^2
uniform bool uPairPotential;      // false: the caller has the potential another way (a tree's)

// The per-body terms of body i, and its position and mass.
void bodyTerms(uint i, out double terms[PAIR_QUANTITY], out vec4 positionMass) {
  int width = textureSize(uPositionMass, 0).x;
  ivec2 texel = ivec2(int(i) % width, int(i) / width);
  positionMass = texelFetch(uPositionMass, texel, 0);
  dvec3 r = dvec3(positionMass.xyz);
  dvec3 v = dvec3(texelFetch(uVelocity, texel, 0).xyz);
  double m = double(positionMass.w);
  dvec3 momentum = m * v, angularMomentum = m * cross(r, v), weightedPosition = m * r;
  terms = double[PAIR_QUANTITY](momentum.x, momentum.y, momentum.z, m, angularMomentum.x,
                                angularMomentum.y, angularMomentum.z, 0.5 * m * dot(v, v),
                                weightedPosition.x, weightedPosition.y, weightedPosition.z);
}

// m_j / sqrt(r^2 + eps^2) in float32, zero for a pair at distance 0 without softening: the force
// law's convention (shaders/gravity.glsl), so that both agree on what a state's energy is.
float pairFactor(vec4 bodyI, vec4 bodyJ) {
  vec3 d = bodyJ.xyz - bodyI.xyz;
  float r2 = dot(d, d) + uSoftening2;
  return bodyJ.w * (r2 > 0.0 ? inversesqrt(r2) : 0.0);
}
#endif

#if PASS == 0
shared uint groupScales[WORKGROUP_SIZE * QUANTITIES];

uint biasedExponent(double term) {
  if (term == 0.0 || isinf(term) || isnan(term)) return 0u;
  int exponent;
  frexp(term, exponent);  // |term| < 2^exponent
  return uint(exponent + EXPONENT_BIAS);
}

void raiseScale(uint into, uint from) {
  for (int q = 0; q < QUANTITIES; ++q)
    groupScales[into * QUANTITIES + q] =
        max(groupScales[into * QUANTITIES + q], groupScales[from * QUANTITIES + q]);
}
WORKGROUP_REDUCE(largestScales, raiseScale)

// The largest exponent of body i's terms, its pair terms included (body i itself left out by its
// index: with eps > 0 its own term would not vanish; padding texels are massless).
void raiseBodyScales(uint i, inout uint top[QUANTITIES]) {
  double terms[PAIR_QUANTITY];
  vec4 bodyI;
  bodyTerms(i, terms, bodyI);
  for (int q = 0; q < PAIR_QUANTITY; ++q) top[q] = max(top[q], biasedExponent(terms[q]));
  if (!uPairPotential) return;
  ivec2 size = textureSize(uPositionMass, 0);
  for (uint j = 0u; j < uint(size.x * size.y); ++j) {
    vec4 bodyJ = texelFetch(uPositionMass, ivec2(int(j) % size.x, int(j) / size.x), 0);
    if (j != i)
      top[PAIR_QUANTITY] = max(top[PAIR_QUANTITY],
                               biasedExponent(double(bodyI.w) * double(pairFactor(bodyI, bodyJ))));
  }
}

void main() {
  uint top[QUANTITIES];
  for (int q = 0; q < QUANTITIES; ++q) top[q] = 0u;
  for (uint k = 0u; k < uElementsPerInvocation; ++k) {
    uint index = shareElement(gl_WorkGroupID.x, uElementsPerInvocation, k);
    if (index < uCount) raiseBodyScales(index, top);
  }
  for (int q = 0; q < QUANTITIES; ++q) groupScales[gl_LocalInvocationID.x * QUANTITIES + q] = top[q];
  largestScales();
  for (uint q = gl_LocalInvocationID.x; q < uint(QUANTITIES); q += uint(WORKGROUP_SIZE))
    atomicMax(scales[q], groupScales[q]);  // entry 0's
}
#else
shared Digits groupDigits[WORKGROUP_SIZE];

void addDigits(uint into, uint from) {
  for (int d = 0; d < QUANTITIES * DIGITS; ++d)
    groupDigits[into].digit[d] += groupDigits[from].digit[d];
}
WORKGROUP_REDUCE(sumGroup, addDigits)

#if PASS == 1
uniform int uShift[QUANTITIES];  // a term of quantity q times 2^uShift[q] is below 2^(DIGITS DIGIT_BITS)

// Adds term times 2^uShift[q], its bits below 2^0 dropped (toward zero), to quantity q's digits.
// A term that is not finite goes into the first digit whole, where the host finds it.
void addTerm(inout Digits sum, int q, double term) {
  if (term == 0.0) return;
  if (isinf(term) || isnan(term)) {
    sum.digit[q * DIGITS] += term;
    return;
  }
  int shift = uShift[q];
  double left = ldexp(ldexp(abs(term), shift / 2), shift - shift / 2);  // in two steps: no overflow
  double sign = term < 0.0 ? -1.0LF : 1.0LF;
  for (int k = 0; k < DIGITS; ++k) {
    double digit = floor(left * digitWeight(k, -1));
    left -= digit * digitWeight(k, 1);
    sum.digit[q * DIGITS + k] += sign * digit;
  }
}

void addBodyDigits(uint i, inout Digits sum) {
  double terms[PAIR_QUANTITY];
  vec4 bodyI;
  bodyTerms(i, terms, bodyI);
  for (int q = 0; q < PAIR_QUANTITY; ++q) addTerm(sum, q, terms[q]);
  if (!uPairPotential) return;
  ivec2 size = textureSize(uPositionMass, 0);
  for (uint j = 0u; j < uint(size.x * size.y); ++j) {
    vec4 bodyJ = texelFetch(uPositionMass, ivec2(int(j) % size.x, int(j) / size.x), 0);
    if (j != i) addTerm(sum, PAIR_QUANTITY, double(bodyI.w) * double(pairFactor(bodyI, bodyJ)));
  }
}

Digits load(uint i) {
  Digits sum;
  for (int d = 0; d < QUANTITIES * DIGITS; ++d) sum.digit[d] = 0.0LF;
  addBodyDigits(i, sum);
  carryDigits(sum);
  return sum;
}
#else
layout(std430, binding = 1) readonly buffer InputDigits { Digits inputDigits[]; };

Digits load(uint i) { return inputDigits[i]; }
#endif

void main() {
  uint local = gl_LocalInvocationID.x;
  for (int d = 0; d < QUANTITIES * DIGITS; ++d) groupDigits[local].digit[d] = 0.0LF;
  for (uint k = 0u; k < uElementsPerInvocation; ++k) {
    uint index = shareElement(gl_WorkGroupID.x, uElementsPerInvocation, k);
    if (index < uCount) {
      Digits element = load(index);
      for (int d = 0; d < QUANTITIES * DIGITS; ++d) groupDigits[local].digit[d] += element.digit[d];
    }
  }
  sumGroup();
  if (local == 0u) {
    Digits sum = groupDigits[0];
    carryDigits(sum);
    outputDigits[gl_WorkGroupID.x] = sum;
  }
}
#endif
