// One point per body, read straight from the engine's state textures (body_fetch.glsl, colormap.glsl
// first): no vertex buffer and no copy of the state; the padding texels past the last body are never
// drawn.
//
// Defines: COLOR_BY (0: the colormap shows the speed |v|; 1: the mass; 2: each component has its
// own colour, uComponentColors; 3: the distance from the centre of mass; 4: the specific angular
// momentum L_z about it; 5: the specific energy |v|^2 / 2 + phi about it, phi from uField; 6: the
// local density, uField), LOG_SCALE (1: the colormap spans log(quantity)).

uniform sampler1D uColormap;
uniform mat4 uViewProjection;
uniform float uPointSize;       // diameter in pixels at uReferenceDepth
uniform float uReferenceDepth;  // the camera's distance to its target
uniform vec2 uPointSizeRange;   // the smallest and largest diameters drawn
uniform vec2 uColorRange;       // the quantity at the colormap's ends
uniform float uBrightness;
uniform vec3 uComponentColors[COMPONENT_COUNT];
uniform vec3 uCentre;            // the centre of mass now, and its velocity (COLOR_BY 3 and 4)
uniform vec3 uCentreVelocity;

flat out vec3 vLight;  // light at the centre of the sprite

#if COLOR_BY >= 5
uniform sampler2DArray uField;  // x: each body's potential (5) or local density (6), render/body_field.h

float fieldOf(int index) {
  int width = textureSize(uField, 0).x;
  return texelFetch(uField, ivec3(index % width, index / width, 0), 0).x;
}
#endif

vec3 colormap(float quantity) {
#if LOG_SCALE
  return colormapAt(uColormap, log(quantity / uColorRange.x) / log(uColorRange.y / uColorRange.x));
#else
  return colormapAt(uColormap, (quantity - uColorRange.x) / (uColorRange.y - uColorRange.x));
#endif
}

void main() {
  Body body = fetchBody(gl_VertexID);
  if (isHidden(body)) {
    placeNowhere();
    vLight = vec3(0.0);
    return;
  }
  vec4 positionMass = body.positionMass, velocity = body.velocity;
  uint component = body.component;
  gl_Position = uViewProjection * vec4(positionMass.xyz, 1.0);

  // Perspective: the diameter falls with the depth (clip w). A sprite smaller than the smallest
  // size drawn would flicker between pixels, so it is drawn at that size with its light spread
  // thinner, keeping the light it adds; a far-away crowd then reads as a glow instead of dust.
  float wanted = uPointSize * uReferenceDepth / max(gl_Position.w, 1e-6);
  float drawn = clamp(wanted, uPointSizeRange.x, uPointSizeRange.y);
  float dimming = min(1.0, (wanted * wanted) / (drawn * drawn));
  gl_PointSize = drawn;
  vec3 r = positionMass.xyz - uCentre, v = velocity.xyz - uCentreVelocity;
#if COLOR_BY == 0
  vec3 colour = colormap(length(velocity.xyz));
#elif COLOR_BY == 1
  vec3 colour = colormap(positionMass.w);
#elif COLOR_BY == 2
  vec3 colour = uComponentColors[component];
#elif COLOR_BY == 3
  vec3 colour = colormap(length(r));
#elif COLOR_BY == 4
  vec3 colour = colormap(r.x * v.y - r.y * v.x);
#elif COLOR_BY == 5
  vec3 colour = colormap(0.5 * dot(v, v) + fieldOf(gl_VertexID));
#else
  vec3 colour = colormap(fieldOf(gl_VertexID));
#endif
  vLight = uBrightness * dimming * colour;
}
