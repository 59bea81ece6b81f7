// A body read straight from an engine's state textures: body i at texel (i % width, i / width).
// The point renderers draw glDrawArrays(GL_POINTS, 0, bodyCount) with gl_VertexID as the body.

uniform sampler2D uPositionMass;  // xyz position, w mass
uniform sampler2D uVelocity;      // xyz velocity, w the component
uniform uint uHiddenComponents;   // bit k: component k is not drawn and adds nothing

struct Body {
  vec4 positionMass, velocity;
  uint component;
};

Body fetchBody(int index) {
  int width = textureSize(uPositionMass, 0).x;
  ivec2 texel = ivec2(index % width, index / width);
  Body body;
  body.positionMass = texelFetch(uPositionMass, texel, 0);
  body.velocity = texelFetch(uVelocity, texel, 0);
  body.component = uint(body.velocity.w);
  return body;
}

bool isHidden(Body body) { return (uHiddenComponents & (1u << body.component)) != 0u; }

#ifndef DRAWN_AS_POINTS
#define DRAWN_AS_POINTS 1  // 0: read by a compute shader (sprite_splat.comp), which draws no point
#endif
#if DRAWN_AS_POINTS
// Outside the clip volume by far, one pixel wide: a hidden body's point draws nothing.
void placeNowhere() {
  gl_Position = vec4(-4.0, -4.0, -4.0, 1.0);
  gl_PointSize = 1.0;
}
#endif
