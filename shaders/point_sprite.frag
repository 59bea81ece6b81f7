// The sprite's light at this fragment (sprite_weight.glsl first), added up (blending ONE, ONE) in a
// floating-point target; tone_map.frag brings the sum into the screen's range.

flat in vec3 vLight;
layout(location = 0) out vec4 outLight;

void main() {
  float weight = spriteWeight(2.0 * gl_PointCoord - 1.0);
  if (weight < 0.0) discard;
  outLight = vec4(weight * vLight, 0.0);
}
