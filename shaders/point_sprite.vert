// One point per body, read straight from the engine's state textures (sprite.glsl and what it
// needs first): no vertex buffer and no copy of the state; the padding texels past the last body
// are never drawn.

flat out vec3 vLight;  // light at the centre of the sprite

void main() {
  Sprite sprite = spriteOf(gl_VertexID);
  if (!sprite.shown) {
    placeNowhere();
    vLight = vec3(0.0);
    return;
  }
  gl_Position = sprite.clipPosition;
  gl_PointSize = sprite.diameter;
  vLight = sprite.light;
}
