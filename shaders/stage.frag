// One Runge-Kutta stage, one body per fragment (the paper's kernel): evaluates the acceleration at
// this stage's positions (the O(N^2) part), then writes through multiple render targets the next
// stage's (or step's) state and, when a later stage needs it, this stage's acceleration.
// Files before this one: gravity.glsl, external_potential.glsl, texture_sum.glsl, rk_combine.glsl
// (BODIES is 1).
// Defines: WRITE_ACCELERATION (1 when a later stage reads this stage's acceleration).

layout(location = 0) out vec4 outPositionMass;
layout(location = 1) out vec4 outVelocity;
#if WRITE_ACCELERATION
layout(location = 2) out vec4 outAcceleration;
#endif

uniform sampler2D uStagePositionMass;  // positions this stage evaluates forces at, all bodies
uniform float uGravity;
uniform int uBodyCount;

void main() {
  ivec2 texel = ivec2(gl_FragCoord.xy);
  int index = texel.y * textureSize(uBasePositionMass, 0).x + texel.x;
  if (index >= uBodyCount) {  // padding stays a massless body at rest at the origin
    outPositionMass = vec4(0.0);
    outVelocity = vec4(0.0);
#if WRITE_ACCELERATION
    outAcceleration = vec4(0.0);
#endif
    return;
  }
  vec4 bodies[1] = vec4[1](texelFetch(uStagePositionMass, texel, 0));
  vec3 ri[1] = vec3[1](bodies[0].xyz);
  vec3 sums[1] = vec3[1](vec3(0.0));
#if CONTACTS
  beginContacts(bodies);
#endif
  sumOverRows(sums, ri, uStagePositionMass, 0, textureSize(uStagePositionMass, 0).y, texel);
#if CONTACTS
  reportContact(contactFound(0));
#endif
  vec3 acceleration = uGravity * sums[0];
#if POTENTIAL_COMPONENTS > 0
  acceleration += externalAcceleration(ri[0]);
#endif
  combineStages(texel, acceleration, outPositionMass, outVelocity);
#if WRITE_ACCELERATION
  outAcceleration = vec4(acceleration, 0.0);
#endif
}
