// One Runge-Kutta stage for one body per fragment: evaluates the acceleration at this stage's
// positions (the O(N^2) part), then writes through multiple render targets what the method's
// tableau builds from the stage derivatives: the next stage's state, or the next step's state.
//
// Defines: STAGE (0-based index of this stage; it combines the derivatives of stages 0..STAGE),
//          WRITE_ACCELERATION (1 when a later stage reads this stage's acceleration).

layout(location = 0) out vec4 outPositionMass;
layout(location = 1) out vec4 outVelocity;
#if WRITE_ACCELERATION
layout(location = 2) out vec4 outAcceleration;
#endif

uniform sampler2D uBasePositionMass;   // state at the start of the step
uniform sampler2D uBaseVelocity;
uniform sampler2D uStagePositionMass;  // positions this stage evaluates forces at, all bodies
uniform sampler2D uStageVelocity[STAGE + 1];  // velocity of stages 0..STAGE (0 is the base)
#if STAGE > 0
uniform sampler2D uStageAcceleration[STAGE];  // accelerations of the earlier stages
#endif
uniform float uWeight[STAGE + 1];  // dt times the tableau weight of each stage's derivative
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
  vec3 position = texelFetch(uStagePositionMass, texel, 0).xyz;
  vec3 acceleration = uGravity * accelerationFromTexture(uStagePositionMass, position);

  vec3 positionChange = vec3(0.0);
  vec3 velocityChange = vec3(0.0);
#if STAGE > 0
  for (int j = 0; j < STAGE; ++j) {
    positionChange += uWeight[j] * texelFetch(uStageVelocity[j], texel, 0).xyz;
    velocityChange += uWeight[j] * texelFetch(uStageAcceleration[j], texel, 0).xyz;
  }
#endif
  positionChange += uWeight[STAGE] * texelFetch(uStageVelocity[STAGE], texel, 0).xyz;
  velocityChange += uWeight[STAGE] * acceleration;

  vec4 base = texelFetch(uBasePositionMass, texel, 0);
  outPositionMass = vec4(base.xyz + positionChange, base.w);
  outVelocity = vec4(texelFetch(uBaseVelocity, texel, 0).xyz + velocityChange, 0.0);
#if WRITE_ACCELERATION
  outAcceleration = vec4(acceleration, 0.0);
#endif
}
