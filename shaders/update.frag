// Advances one body per fragment from accelerations already stored (by force.frag): the cheap
// O(N) half of a stage when several bodies share a fragment in the force pass.
// Files before this one: rk_combine.glsl, with ACCELERATION_INPUTS = STAGE + 1.

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
  combineStages(texel, storedAcceleration(STAGE, texel), outPositionMass, outVelocity);
}
