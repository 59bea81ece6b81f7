// Projected density: each shown body a point whose fragments add its mass spread by a 2-D kernel
// (density.frag) of radius uSmoothing scene units at the body's depth. (body_fetch.glsl first.)

uniform mat4 uViewProjection;
uniform float uPixelsPerUnit;  // picture pixels per scene unit at depth 1: height / (2 tan(fov / 2))
uniform float uSmoothing;      // the kernel's radius, scene units
uniform vec2 uPointSizeRange;  // the smallest and largest diameters drawn

flat out float vMassPerArea;  // the mass over the square of the kernel's radius as drawn

void main() {
  Body body = fetchBody(gl_VertexID);
  if (isHidden(body)) {
    placeNowhere();
    vMassPerArea = 0.0;
    return;
  }
  gl_Position = uViewProjection * vec4(body.positionMass.xyz, 1.0);
  float depth = max(gl_Position.w, 1e-6);
  // A kernel smaller or larger than a point may be is drawn at that size; its radius in scene
  // units is then the drawn one, so that the mass it spreads is still the body's.
  float diameter = clamp(2.0 * uSmoothing * uPixelsPerUnit / depth, uPointSizeRange.x, uPointSizeRange.y);
  gl_PointSize = diameter;
  float radius = 0.5 * diameter * depth / uPixelsPerUnit;
  vMassPerArea = body.positionMass.w / (radius * radius);
}
