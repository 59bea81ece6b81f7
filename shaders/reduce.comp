// Adds up the SLICES partial accelerations force.comp wrote for each body, always in the same
// order (so runs are reproducible), and advances the body.
// Files before this one: group_rows.glsl, body_layout.glsl, external_potential.glsl,
// rk_combine.glsl, compute_store.glsl.

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer PartialSums { vec4 partialSums[]; };  // [slice][i]

uniform int uBodyCount;
uniform int uPaddedCount;
uniform float uGravity;
uniform int uFirstBody;  // of this dispatch's range: 0, or a distributed run's rank's share
uniform int uLastBody;   // the range's end (its rows of work groups may run past it)
#if POTENTIAL_COMPONENTS > 0
uniform sampler2D uStagePositionMass;  // where this stage's force is evaluated
#endif

void main() {
  int i = uFirstBody + int(invocationInRows(gl_WorkGroupSize.x));
  if (i >= uLastBody || i >= uBodyCount) return;  // padding keeps the massless state StageTextures::upload cleared
  vec3 sum = vec3(0.0);
  for (int slice = 0; slice < SLICES; ++slice) sum += partialSums[slice * uPaddedCount + i].xyz;
  ivec2 texel = texelOfBody(i, textureSize(uBasePositionMass, 0).x);
  vec3 acceleration = uGravity * sum;
#if POTENTIAL_COMPONENTS > 0
  acceleration += externalAcceleration(texelFetch(uStagePositionMass, texel, 0).xyz);
#endif
  storeAdvancedBody(texel, acceleration);
}
