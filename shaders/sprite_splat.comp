// The sprites' light added up on the shader cores instead of the blending units (sprite.glsl and
// sprite_weight.glsl first): each invocation takes bodies, finds the pixels its sprite covers as
// point rasterization does (pixel centres inside the square of the sprite's diameter about its
// centre) and adds the light there. GPUs built for compute have few blending units, and blends into
// one pixel wait on each other, so a dense core of many sprites takes them long (docs/performance.md,
// "Drawing the sprites").
//
// The sums are exact: each channel of each pixel is a 64-bit fixed-point number (32 bits of
// fraction) in two words, low then high, added to with integer atomics, which commute. So the
// picture is the same bits whatever order the additions land in (sprite_resolve.comp reads it).
// Unlike a point, a sprite whose centre lies outside the picture still adds the part inside it.
//
// Defines: LARGE_SPRITES. 0: one invocation a body, which adds the light of a sprite up to
// kLargestSmallSprite pixels wide itself and lists the larger ones (as many as the list holds;
// past that it adds theirs too). 1: one work group a listed sprite, its invocations sharing the
// pixels (dispatched indirectly by the list's count), so that a few bodies near the camera do not
// hold up the rest.

layout(local_size_x = 256) in;

layout(std430, binding = 0) buffer LightSums {
  uint lightSums[];  // per pixel, row by row: r low, r high, g low, g high, b low, b high
};
// The large sprites: the first three words are the indirect dispatch's work-group counts, so the
// count of listed bodies is the first.
layout(std430, binding = 1) buffer LargeSprites {
  uint largeCount, one, alsoOne;
  uint largeBodies[];
};

uniform int uBodyCount;
uniform ivec2 uPictureSize;
uniform uint uLargeCapacity;  // the most bodies the list holds

const float kLargestSmallSprite = 16.0;     // pixels across
const float kFractionScale = 4294967296.0;  // 2^32

void addLight(int pixel, vec3 light) {
  for (int channel = 0; channel < 3; ++channel) {
    float amount = light[channel];
    uint whole = uint(amount), fraction = uint(fract(amount) * kFractionScale);
    int low = 6 * pixel + 2 * channel;
    uint before = atomicAdd(lightSums[low], fraction);
    uint carried = whole + (before + fraction < before ? 1u : 0u);
    if (carried != 0u) atomicAdd(lightSums[low + 1], carried);
  }
}

// The pixels a sprite covers, and what a pixel of them receives.
struct Footprint {
  vec2 centre;
  float radius;
  ivec2 first, last;  // none when first > last
};

Footprint footprintOf(Sprite sprite) {
  Footprint footprint;
  vec4 clip = sprite.clipPosition;
  footprint.centre = (clip.xy / clip.w * 0.5 + 0.5) * vec2(uPictureSize);
  footprint.radius = 0.5 * sprite.diameter;
  footprint.first = max(ivec2(ceil(footprint.centre - footprint.radius - 0.5)), ivec2(0));
  footprint.last = min(ivec2(ceil(footprint.centre + footprint.radius - 0.5)) - 1, uPictureSize - 1);
  // Behind the camera, or beyond the near or far plane: nothing, as for a point.
  if (!(clip.w > 0.0) || abs(clip.z) > clip.w) footprint.last = footprint.first - 1;
  return footprint;
}

void addPixel(Footprint footprint, vec3 light, ivec2 pixel) {
  float weight = spriteWeight((vec2(pixel) + 0.5 - footprint.centre) / footprint.radius);
  if (weight > 0.0) addLight(pixel.y * uPictureSize.x + pixel.x, weight * light);
}

#if !LARGE_SPRITES
bool listedAsLarge(int body, Sprite sprite) {
  if (sprite.diameter <= kLargestSmallSprite) return false;
  uint slot = atomicAdd(largeCount, 1u);
  if (slot < uLargeCapacity) {
    largeBodies[slot] = uint(body);
    return true;
  }
  atomicAdd(largeCount, 0xffffffffu);  // full: take the slot back, and add it here
  return false;
}

void main() {
  int stride = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  for (int body = int(gl_GlobalInvocationID.x); body < uBodyCount; body += stride) {
    Sprite sprite = spriteOf(body);
    if (!sprite.shown || listedAsLarge(body, sprite)) continue;
    Footprint footprint = footprintOf(sprite);
    for (int y = footprint.first.y; y <= footprint.last.y; ++y)
      for (int x = footprint.first.x; x <= footprint.last.x; ++x)
        addPixel(footprint, sprite.light, ivec2(x, y));
  }
}
#else
void main() {
  int body = int(largeBodies[gl_WorkGroupID.x]);
  Sprite sprite = spriteOf(body);
  Footprint footprint = footprintOf(sprite);
  ivec2 span = footprint.last - footprint.first + 1;
  if (span.x <= 0 || span.y <= 0) return;
  for (int k = int(gl_LocalInvocationID.x); k < span.x * span.y; k += int(gl_WorkGroupSize.x))
    addPixel(footprint, sprite.light, footprint.first + ivec2(k % span.x, k / span.x));
}
#endif
