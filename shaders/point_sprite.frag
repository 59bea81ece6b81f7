// A round, soft sprite: Gaussian falloff from the centre, shifted and rescaled to reach exactly zero
// at the rim so no edge shows. The light is added up (blending ONE, ONE) in a floating-point target;
// tone_map.frag brings the sum into the screen's range.

flat in vec3 vLight;
layout(location = 0) out vec4 outLight;

const float kFalloff = 4.0;  // exp(-4 r^2): the Gaussian's sigma is about a third of the radius

void main() {
  vec2 fromCentre = 2.0 * gl_PointCoord - 1.0;
  float r2 = dot(fromCentre, fromCentre);
  if (r2 >= 1.0) discard;
  float rim = exp(-kFalloff);
  float weight = (exp(-kFalloff * r2) - rim) / (1.0 - rim);
  outLight = vec4(weight * vLight, 0.0);
}
