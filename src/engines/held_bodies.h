#pragma once
// The bodies one rank of a decomposed run holds (docs/decomposed-tree-design.md, step 10c): their
// state in StageTextures of their own (body i at texel i, in every texture a method's stages use),
// and their IDs (their indices in the whole state, ascending) on the GPU. A decomposed tree lays
// them out anew at each evaluation, as bodies cross between ranks (tree/tree_migrate.h); the
// update then advances them alone. The whole state is every rank's held bodies gathered by ID.

#include <cstddef>
#include <optional>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "engines/stage_textures.h"
#include "gl/growing_buffer.h"
#include "gl/host_parcel.h"
#include "gl/objects.h"
#include "gl/shader_program.h"
#include "parallel/ranks.h"

namespace nbody {

class HeldBodies {
 public:
  // This rank's share of `full`'s current state (every body: `bodyCount` of them), in whole rows
  // of its textures. Every rank calls it alike.
  HeldBodies(const StageTextures& full, std::size_t bodyCount, const Ranks& ranks);

  StageTextures& textures() { return textures_; }
  const StageTextures& textures() const { return textures_; }
  std::size_t count() const { return count_; }
  GLuint ids() const { return ids_.buffer.id(); }  // count() words, ascending
  // The textures' size for `count` bodies: the current one while it holds them and is not more
  // than twice as large as they need, else room for an eighth more.
  glm::ivec2 sizeFor(std::size_t count) const;
  // After the textures were laid out anew (each body's texels moved, sizes said to textures()):
  // the IDs of the bodies they hold now, `count` words of `source`.
  void heldNow(GLuint source, std::size_t count);

  // The IDs held (waits for the GPU).
  std::vector<std::uint32_t> readIds() const;

  // Every rank's held bodies' current state, placed by ID into `full`'s (`bodyCount` bodies): each
  // rank's records (ID, position, velocity: 36 bytes a body) packed on the GPU, gathered through
  // host memory and stored by ID on the GPU (shaders/held_gather.comp), in pieces of at most
  // `pieceBytes` on the GPU (0: one shader storage block of this GPU). Every rank calls it alike.
  void gatherInto(StageTextures& full, std::size_t bodyCount, const Ranks& ranks,
                  std::size_t pieceBytes = 0);
  // Every rank's held bodies' accelerations of stage `stage`, by ID (`bodyCount` bodies).
  std::vector<glm::dvec3> gatherAccelerations(int stage, std::size_t bodyCount,
                                              const Ranks& ranks) const;

 private:
  void runGather(bool pack, std::size_t first, std::size_t count);

  StageTextures textures_;
  gl::GrowingBuffer ids_;
  std::size_t count_ = 0;
  // gatherInto's: every rank's records on the GPU and in host memory, and its two kernels.
  gl::GrowingBuffer records_;
  gl::HostParcel parcel_;
  std::optional<gl::UniformProgram> pack_, store_;
};

}  // namespace nbody
