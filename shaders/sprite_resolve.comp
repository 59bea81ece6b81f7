// The splat's exact sums (sprite_splat.comp) as the light texture the trails and the tone map read:
// one invocation a pixel.

layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer LightSums { uint lightSums[]; };
layout(rgba16f, binding = 0) uniform writeonly image2D uLight;

uniform ivec2 uPictureSize;

const float kFraction = 1.0 / 4294967296.0;  // 2^-32

void main() {
  ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(pixel, uPictureSize))) return;
  int low = 6 * (pixel.y * uPictureSize.x + pixel.x);
  vec3 light;
  for (int channel = 0; channel < 3; ++channel)
    light[channel] = float(lightSums[low + 2 * channel + 1]) +
                     float(lightSums[low + 2 * channel]) * kFraction;
  imageStore(uLight, pixel, vec4(light, 0.0));
}
