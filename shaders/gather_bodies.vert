// A few bodies copied out of the state textures into a small target for one readback (the window's
// picked bodies): point 2k writes body uIndices[k]'s position and mass into pixel (k, 0), point
// 2k + 1 its velocity and component into (k, 1). (body_layout.glsl first.)

uniform sampler2D uPositionMass;
uniform sampler2D uVelocity;
uniform uint uIndices[MOST_BODIES];
uniform vec2 uTargetSize;  // pixels

flat out vec4 vTexel;

void main() {
  int k = gl_VertexID / 2, row = gl_VertexID % 2;
  ivec2 texel = texelOfBody(int(uIndices[k]), textureSize(uPositionMass, 0).x);
  vTexel = row == 0 ? texelFetch(uPositionMass, texel, 0) : texelFetch(uVelocity, texel, 0);
  vec2 pixelCentre = vec2(float(k) + 0.5, float(row) + 0.5);
  gl_Position = vec4(pixelCentre / uTargetSize * 2.0 - 1.0, 0.0, 1.0);
  gl_PointSize = 1.0;
}
