// The surface density through the colormap on a log scale: uColorRange's ends at the colormap's
// ends; a decade below the low end fades into the background, and where no kernel reached stays
// background. Drawn with fullscreen.vert over the caller's viewport (colormap.glsl first).

uniform sampler2D uDensity;      // the size of the viewport
uniform sampler2D uColormap;
uniform vec2 uColorRange;        // surface densities, above 0
uniform ivec2 uViewportOrigin;   // gl_FragCoord counts from the framebuffer's corner
uniform vec3 uBackground;

layout(location = 0) out vec4 outColor;

void main() {
  float density = texelFetch(uDensity, ivec2(gl_FragCoord.xy) - uViewportOrigin, 0).r;
  if (!(density > 0.0)) {
    outColor = vec4(uBackground, 1.0);
    return;
  }
  float decades = log(density / uColorRange.x) / log(10.0);
  float t = decades * log(10.0) / log(uColorRange.y / uColorRange.x);
  float shown = clamp(1.0 + decades, 0.0, 1.0);  // 1 from the low end up, 0 a decade below
  outColor = vec4(mix(uBackground, colormapAt(uColormap, t), shown), 1.0);
}
