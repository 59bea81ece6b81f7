// A round, soft sprite: Gaussian falloff from the centre, shifted and rescaled to reach exactly zero
// at the rim so no edge shows. `fromCentre`: the point within the sprite, its rim at length 1.
// Negative outside the rim, where the sprite adds nothing.

const float kFalloff = 4.0;  // exp(-4 r^2): the Gaussian's sigma is about a third of the radius

float spriteWeight(vec2 fromCentre) {
  float r2 = dot(fromCentre, fromCentre);
  if (r2 >= 1.0) return -1.0;
  float rim = exp(-kFalloff);
  return (exp(-kFalloff * r2) - rim) / (1.0 - rim);
}
