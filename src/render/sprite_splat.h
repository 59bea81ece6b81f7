#pragma once
// The sprites' light added up by compute shaders instead of the blending units
// (shaders/sprite_splat.comp says why and how): exact fixed-point sums, the same bits whatever the
// order, then written into the light texture that the trails and the tone map read
// (shaders/sprite_resolve.comp). The point sprites and the splat draw the same sprites
// (shaders/sprite.glsl); PointSpriteRenderer chooses.

#include <cstddef>
#include <cstdint>
#include <vector>

#include <glm/vec2.hpp>

#include "gl/objects.h"
#include "gl/shader_program.h"
#include "parallel/ranks.h"

namespace nbody {

class SpriteSplat {
 public:
  SpriteSplat();  // needs a current OpenGL 4.3 context or later

  // Adds up the light of `bodyCount` bodies' sprites as `smallSprites` and `largeSprites`
  // (sprite_splat.comp's two variants, built by the caller with the sprites' uniforms set and the
  // state's textures bound) find them, and writes it into `light` (an RGBA16F texture of `size`),
  // replacing what it held. Leaves no program current and no buffer or image bound.
  // `across`: every rank draws its own bodies alike (sort-last compositing), and each pixel's sums
  // are added across the ranks before they are written: exact integers, so every rank's `light`
  // is the picture one process drawing all their bodies makes, bit for bit.
  void draw(std::size_t bodyCount, const gl::UniformProgram& smallSprites,
            const gl::UniformProgram& largeSprites, glm::ivec2 size, GLuint light,
            const Ranks* across = nullptr);

 private:
  void reservePixels(std::size_t pixels);
  void addSprites(std::size_t bodyCount, const gl::UniformProgram& smallSprites,
                  const gl::UniformProgram& largeSprites, glm::ivec2 size);
  void addAcross(std::size_t pixels, const Ranks& ranks);
  void resolve(glm::ivec2 size, GLuint light);

  gl::UniformProgram resolveProgram_;
  gl::Buffer sums_;                       // six words a pixel (sprite_splat.comp)
  std::size_t pixelCapacity_ = 0;         // the most pixels sums_ holds
  gl::Buffer largeSprites_;               // the indirect dispatch's counts, then the listed bodies
  std::size_t largeCapacity_ = 0;         // the most bodies it lists
  std::vector<std::int64_t> acrossSums_;  // addAcross's: every rank's sums, added
};

}  // namespace nbody
