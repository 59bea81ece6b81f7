// A body's sprite: where it lies, how wide it is drawn and the light at its centre, from the
// engine's state textures (body_fetch.glsl, colormap.glsl and colour_quantities.glsl come first).
// The point sprites (point_sprite.vert) and the splat (sprite_splat.comp) draw the same sprites.
//
// Defines: COLOR_BY (the number of a quantity of colour_quantities.glsl), BY_COMPONENT (1: each
// component has its own colour, uComponentColors; 0: the quantity goes through the colormap),
// USES_FIELD (1: the quantity reads the bodies' field, uField), LOG_SCALE (1: the colormap spans
// log(quantity)).

uniform sampler2D uColormap;
uniform mat4 uViewProjection;
uniform float uPointSize;       // diameter in pixels at uReferenceDepth
uniform float uReferenceDepth;  // the camera's distance to its target
uniform vec2 uPointSizeRange;   // the smallest and largest diameters drawn
uniform vec2 uColorRange;       // the quantity at the colormap's ends
uniform float uBrightness;
uniform vec3 uComponentColors[COMPONENT_COUNT];
uniform vec3 uCentre;            // the centre of mass now, and its velocity (r and v)
uniform vec3 uCentreVelocity;

#if USES_FIELD
uniform sampler2DArray uField;  // x: each body's potential or local density, render/body_field.h

float fieldOf(int index) {
  int width = textureSize(uField, 0).x;
  return texelFetch(uField, ivec3(index % width, index / width, 0), 0).x;
}
#else
float fieldOf(int index) { return 0.0; }
#endif

// The quantity COLOR_BY of a body: its measure in colour_quantities.glsl.
float colourQuantity(vec4 positionMass, vec3 velocity, vec3 r, vec3 v, float field) {
#define MEASURE_IF_CHOSEN(name, number, measure) \
  if (COLOR_BY == number) return measure;
  NBODY_COLOUR_QUANTITIES(MEASURE_IF_CHOSEN)
  return 0.0;
}

vec3 colormap(float quantity) {
#if LOG_SCALE
  return colormapAt(uColormap, log(quantity / uColorRange.x) / log(uColorRange.y / uColorRange.x));
#else
  return colormapAt(uColormap, (quantity - uColorRange.x) / (uColorRange.y - uColorRange.x));
#endif
}

struct Sprite {
  bool shown;         // false: a hidden component's body, which adds nothing
  vec4 clipPosition;  // the centre in clip coordinates
  float diameter;     // in pixels
  vec3 light;         // at the centre
};

Sprite spriteOf(int index) {
  Body body = fetchBody(index);
  Sprite sprite;
  sprite.shown = !isHidden(body);
  vec4 positionMass = body.positionMass, velocity = body.velocity;
  sprite.clipPosition = uViewProjection * vec4(positionMass.xyz, 1.0);

  // Perspective: the diameter falls with the depth (clip w). A sprite smaller than the smallest
  // size drawn would flicker between pixels, so it is drawn at that size with its light spread
  // thinner, keeping the light it adds; a far-away crowd then reads as a glow instead of dust.
  float wanted = uPointSize * uReferenceDepth / max(sprite.clipPosition.w, 1e-6);
  sprite.diameter = clamp(wanted, uPointSizeRange.x, uPointSizeRange.y);
  float dimming = min(1.0, (wanted * wanted) / (sprite.diameter * sprite.diameter));
  vec3 r = positionMass.xyz - uCentre, v = velocity.xyz - uCentreVelocity;
#if BY_COMPONENT
  vec3 colour = uComponentColors[body.component];
#else
  vec3 colour = colormap(colourQuantity(positionMass, velocity.xyz, r, v, fieldOf(index)));
#endif
  sprite.light = uBrightness * dimming * colour;
  return sprite;
}
