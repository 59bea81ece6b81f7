// The colormap's colour at t in [0, 1] (clamped), read at its texels' centres so that both ends are
// its end colours.
vec3 colormapAt(sampler1D colormap, float t) {
  float texels = float(textureSize(colormap, 0));
  return textureLod(colormap, (clamp(t, 0.0, 1.0) * (texels - 1.0) + 0.5) / texels, 0.0).rgb;
}
