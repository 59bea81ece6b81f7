// One triangle that covers the whole viewport, without any vertex buffer: each fragment of the
// render target is then shaded exactly once.
void main() {
  vec2 corner = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);
  gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
