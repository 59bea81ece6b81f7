// Brings the added-up light of the sprites into the screen's range: 1 - exp(-light) per channel.
// A lone body in the halo stays visible while the crowded core brightens towards white without
// clipping to a flat blob. The background shows through where there is little light.
// Drawn with fullscreen.vert over the caller's viewport.

uniform sampler2D uLight;        // the size of the viewport
uniform ivec2 uViewportOrigin;   // gl_FragCoord counts from the framebuffer's corner
uniform vec3 uBackground;

layout(location = 0) out vec4 outColor;

void main() {
  vec3 light = texelFetch(uLight, ivec2(gl_FragCoord.xy) - uViewportOrigin, 0).rgb;
  outColor = vec4(1.0 - (1.0 - uBackground) * exp(-light), 1.0);
}
