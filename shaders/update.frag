// Advances one body per fragment without evaluating forces: the cheap O(N) half of a stage when
// several bodies share a fragment in the force pass (force.frag stored this stage's acceleration),
// the first stage of an FSAL method (the last step stored it), or a force-free stage.
// Files before this one: rk_combine.glsl, with ACCELERATION_INPUTS = STAGE + 1 when this stage's
// acceleration is stored, STAGE for a force-free stage.

layout(location = 0) out vec4 outPositionMass;
layout(location = 1) out vec4 outVelocity;

uniform int uBodyCount;

void main() {
  ivec2 texel = ivec2(gl_FragCoord.xy);
  int index = texel.y * textureSize(uBasePositionMass, 0).x + texel.x;
  if (index >= uBodyCount) {
    outPositionMass = vec4(0.0);
    outVelocity = vec4(0.0);
    return;
  }
#if ACCELERATION_INPUTS > STAGE
  vec3 acceleration = storedAcceleration(uStageAcceleration[STAGE], texel);
#else
  vec3 acceleration = vec3(0.0);  // force-free: no weight reads it
#endif
  combineStages(texel, acceleration, outPositionMass, outVelocity);
}
