// Folds this picture's light into the trails (trails on: --trails). Passes the light on unchanged;
// the blend state does the work, in two draws over the trail target: first the trail fades
// (blending ZERO, CONSTANT_COLOR: trail * 0.5^(elapsed / half-life), whatever this writes), then
// the light is kept where it is brighter than the faded trail (blend equation MAX). So a body's
// trail starts at its sprite's light and halves with every half-life of simulated time, and a body
// at rest stays as bright as without trails instead of piling up light frame after frame.
// Drawn with fullscreen.vert over the whole trail target.

uniform sampler2D uLight;  // this picture's light, the trail target's size

layout(location = 0) out vec4 outLight;

void main() {
  outLight = texelFetch(uLight, ivec2(gl_FragCoord.xy), 0);
}
