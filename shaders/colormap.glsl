// The colormap's colour at t in [0, 1] (clamped), read at its texels' centres so that both ends are
// its end colours.
// The colormap is a row of texels (GLSL ES 3.00 has no sampler1D), read at its middle.
vec3 colormapAt(sampler2D colormap, float t) {
  float texels = float(textureSize(colormap, 0).x);
  vec2 at = vec2((clamp(t, 0.0, 1.0) * (texels - 1.0) + 0.5) / texels, 0.5);
  return textureLod(colormap, at, 0.0).rgb;
}
