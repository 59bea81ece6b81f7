#pragma once
// The bodies one rank of a decomposed run holds (docs/decomposed-tree-design.md, step 10c): their
// state in StageTextures of their own (body i at texel i, in every texture a method's stages use),
// and their IDs (their indices in the whole state, ascending) on the GPU. A decomposed tree lays
// them out anew at each evaluation, as bodies cross between ranks (tree/tree_migrate.h); the
// update then advances them alone. The whole state is every rank's held bodies gathered by ID.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "engines/stage_textures.h"
#include "gl/growing_buffer.h"
#include "gl/host_parcel.h"
#include "gl/objects.h"
#include "gl/shader_program.h"
#include "parallel/ranks.h"

namespace nbody {

class HeldBodies {
 public:
  // This rank's share of `state` (every body), in whole rows of the whole state's textures,
  // `wholeWidth` texels wide. Every rank calls it alike.
  HeldBodies(const State& state, int wholeWidth, const Ranks& ranks);
  // The same of `full`'s current state (`bodyCount` bodies), read back.
  HeldBodies(const StageTextures& full, std::size_t bodyCount, const Ranks& ranks);
  // The bodies `rows`, `indices` their indices in the whole state (ascending, below 2^32), as this
  // rank's share (Engine::uploadPart).
  HeldBodies(const State& rows, std::span<const std::uint64_t> indices);

  StageTextures& textures() { return textures_; }
  const StageTextures& textures() const { return textures_; }
  std::size_t count() const { return count_; }
  GLuint ids() const { return ids_.buffer.id(); }  // count() words, ascending
  // The textures' size for `count` bodies: the current one while it holds them and is not more
  // than twice as large as they need, else room for an eighth more.
  glm::ivec2 sizeFor(std::size_t count) const;
  // Room for `count` bodies: an eighth more, as textures and arrays grow.
  static std::size_t withRoom(std::size_t count) { return count + count / 8 + 1; }
  // What a rank plans for as it holds its share of `bodyCount` bodies on `rankCount` ranks.
  static std::size_t plannedShare(std::size_t bodyCount, int rankCount) {
    return withRoom((bodyCount + std::size_t(rankCount) - 1) / std::size_t(rankCount));
  }
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

  // The texels of the bodies `ids` (each held by one rank) in one of textures()'s: a 2-D texture,
  // or layer 0 of a 2-D array (`array`), in the order of `ids`, on every rank. Every rank calls it
  // alike (a collective).
  std::vector<glm::vec4> texelsOf(GLuint texture, bool array, std::span<const std::uint32_t> ids,
                                  const Ranks& ranks);
  // Every body's position and mass (the current state's), in ID order, in pieces of at most
  // `pieceBodies` (and of what one texture holds): `piece` is called on every rank with a texture
  // of the piece's bodies (body k of the piece at texel k, the state's layout) and their count.
  // Every rank calls it alike.
  void forEachPositionPiece(std::size_t bodyCount, const Ranks& ranks, std::size_t pieceBodies,
                            const std::function<void(GLuint, std::size_t)>& piece);

 private:
  // Bodies [first, last) of `state` held, their IDs `ids`.
  void hold(const State& state, std::size_t first, std::size_t last,
            std::span<const std::uint32_t> ids);
  void runGather(bool pack, std::size_t first, std::size_t count);
  // The texels of held bodies `indices` (or, with none given, of [first, first + count)) of
  // `texture` (layer 0 where `array`), read back (shaders/texel_pick.comp).
  std::vector<glm::vec4> pick(GLuint texture, bool array, std::span<const std::uint32_t> indices,
                              std::size_t first = 0, std::size_t count = 0);

  StageTextures textures_;
  gl::GrowingBuffer ids_;
  std::size_t count_ = 0;
  // gatherInto's: every rank's records on the GPU and in host memory, and its two kernels.
  gl::GrowingBuffer records_;
  gl::HostParcel parcel_;
  std::optional<gl::UniformProgram> pack_, store_;
  std::optional<gl::UniformProgram> pickers_[2][2];  // texel_pick.comp by [RANGE][ARRAY]
  gl::GrowingBuffer pickIndices_, picked_;
};

}  // namespace nbody
