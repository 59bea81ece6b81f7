// The overlays' triangles (Dear ImGui's draw lists, in picture pixels from the top left) on the
// caller's viewport.

layout(location = 0) in vec2 aPosition;
layout(location = 1) in vec2 aTexCoord;
layout(location = 2) in vec4 aColour;  // 8-bit RGBA, normalised

uniform vec2 uPictureSize;  // pixels

out vec2 vTexCoord;
out vec4 vColour;

void main() {
  vTexCoord = aTexCoord;
  vColour = aColour;
  vec2 ndc = aPosition / uPictureSize * 2.0 - 1.0;
  gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);  // rows run down the picture, up in OpenGL
}
