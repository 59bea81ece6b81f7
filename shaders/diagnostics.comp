// Diagnostics reduced on the GPU (seed 000's ladder): every invocation sums its elements into
// registers as it loads them, then the workgroup halves the number of live sums in shared memory
// with sequential addressing (workgroup.glsl's reduction: no divergent warps, no bank conflicts),
// and the first invocation writes the group's sum. The host repeats the partials pass until one
// sum remains.
//
// Sums are in double: per-body terms are formed in double from the float32 state, as the CPU forms
// them, and sums of N terms keep the precision an energy drift of 1e-7 needs. Only the O(N^2)
// potential pairs are evaluated in float32 (as the force is), and accumulated in double.
//
// Defines: WORKGROUP_SIZE, BODY_TERMS (1: pass over the bodies of the state textures; 0: sum the
// partial sums of the previous pass). Files before this one: workgroup.glsl.

layout(local_size_x = WORKGROUP_SIZE) in;

// Matches GpuSums in src/diagnostics/gpu_diagnostics.cpp (std430: 3 x 32 bytes).
struct Sums {
  dvec4 momentumMass;               // xyz: sum m v, w: sum m
  dvec4 angularMomentumKinetic;     // xyz: sum m r x v, w: sum 1/2 m v^2
  dvec4 weightedPositionPotential;  // xyz: sum m r, w: -1/2 sum_i m_i sum_{j != i} m_j / r_ij
};

layout(std430, binding = 0) writeonly buffer OutputSums { Sums outputSums[]; };

uniform uint uCount;                 // bodies (BODY_TERMS) or input sums
uniform uint uElementsPerInvocation;

Sums zeroSums() { return Sums(dvec4(0.0), dvec4(0.0), dvec4(0.0)); }

Sums added(Sums a, Sums b) {
  return Sums(a.momentumMass + b.momentumMass, a.angularMomentumKinetic + b.angularMomentumKinetic,
              a.weightedPositionPotential + b.weightedPositionPotential);
}

#if BODY_TERMS
uniform sampler2D uPositionMass;  // the engine's state: body i at texel (i % width, i / width)
uniform sampler2D uVelocity;
uniform float uSoftening2;        // eps^2
uniform bool uPairPotential;      // false: the caller has the potential another way (a tree's)

// 1 / sqrt(r^2 + eps^2), zero for a pair at distance 0 without softening: the force law's
// convention (shaders/gravity.glsl), so that both agree on what a state's energy is.
float inverseDistance(vec3 ri, vec3 rj) {
  vec3 d = rj - ri;
  float r2 = dot(d, d) + uSoftening2;
  return r2 > 0.0 ? inversesqrt(r2) : 0.0;
}

// sum_{j != i} m_j / sqrt(r_ij^2 + eps^2). Like the force, it runs over every texel: padding
// texels are massless and add exactly zero. Body i itself is left out by its index, because with
// eps > 0 its own term would not vanish.
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

Sums load(uint i) {
  int width = textureSize(uPositionMass, 0).x;
  ivec2 texel = ivec2(int(i) % width, int(i) / width);
  vec4 positionMass = texelFetch(uPositionMass, texel, 0);
  dvec3 r = dvec3(positionMass.xyz);
  dvec3 v = dvec3(texelFetch(uVelocity, texel, 0).xyz);
  double m = double(positionMass.w);
  return Sums(dvec4(m * v, m), dvec4(m * cross(r, v), 0.5 * m * dot(v, v)),
              dvec4(m * r, uPairPotential ? -0.5 * m * potentialSum(i, positionMass.xyz) : 0.0));
}
#else
layout(std430, binding = 1) readonly buffer InputSums { Sums inputSums[]; };

Sums load(uint i) { return inputSums[i]; }
#endif

shared Sums groupSums[WORKGROUP_SIZE];

void addSums(uint into, uint from) { groupSums[into] = added(groupSums[into], groupSums[from]); }
WORKGROUP_REDUCE(sumGroup, addSums)

void main() {
  uint local = gl_LocalInvocationID.x;
  Sums sum = zeroSums();
  for (uint k = 0u; k < uElementsPerInvocation; ++k) {
    uint index = shareElement(gl_WorkGroupID.x, uElementsPerInvocation, k);
    if (index < uCount) sum = added(sum, load(index));
  }
  groupSums[local] = sum;
  sumGroup();
  if (local == 0u) outputSums[gl_WorkGroupID.x] = groupSums[0];
}
