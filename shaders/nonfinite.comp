// Finds the first body whose position, mass or velocity is not finite (NaN or infinity), so a
// blown-up simulation is reported instead of drawn as nothing. Reads the exponent bits, which
// no fast-math rule can optimise away (isnan may be). Files before this one:
// group_rows.glsl, body_layout.glsl.

layout(local_size_x = 256) in;

uniform sampler2D uPositionMass;
uniform sampler2D uVelocity;
uniform int uBodyCount;

layout(std430, binding = 0) buffer FirstBad { uint firstBadBody; };  // starts at 0xffffffff

bool anyNonFinite(vec4 value) {
  uvec4 exponent = (floatBitsToUint(value) >> 23u) & 0xffu;
  return any(equal(exponent, uvec4(0xffu)));
}

void main() {
  int i = int(invocationInRows(gl_WorkGroupSize.x));
  if (i >= uBodyCount) return;
  ivec2 texel = texelOfBody(i, textureSize(uPositionMass, 0).x);
  vec4 velocity = texelFetch(uVelocity, texel, 0);
  velocity.w = 0.0;  // unused channel
  if (anyNonFinite(texelFetch(uPositionMass, texel, 0)) || anyNonFinite(velocity))
    atomicMin(firstBadBody, uint(i));
}
