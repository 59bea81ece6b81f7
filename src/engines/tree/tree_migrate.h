#pragma once
// Which bodies each rank of a decomposed tree holds from one evaluation to the next, and their
// state moved with them (docs/decomposed-tree-design.md, step 10c). A rank's home is what it held
// since the last evaluation (engines/held_bodies.h: the segment its walker held then; rows of IDs
// at first), so the cut sends on only the bodies that crossed a segment start: their IDs, then
// every texel of their state. Every list of IDs held here is ascending: a home sorted by key keeps
// equal keys in ID order, as one GPU's (key, ID) composites order them, and so does a walker.

#include <cstddef>
#include <map>
#include <span>
#include <vector>

#include "engines/held_bodies.h"
#include "engines/tree/tree_buffers.h"
#include "engines/tree/tree_decompose.h"
#include "engines/tree/tree_kernels.h"
#include "engines/tree/tree_lists.h"
#include "gl/host_parcel.h"
#include "parallel/ranks.h"

namespace nbody::tree {

// A list of IDs on the GPU, ascending: `count` words of `buffer`.
struct IdList {
  GLuint buffer = 0;
  std::size_t count = 0;
};

class SegmentIds {
 public:
  // After the home's sort and cut (`home`'s local indices sorted in kValuesIn; `sendCounts` of
  // them for each rank, in rank order): sends each other rank its part's IDs and lists the IDs
  // this rank's walker holds, its own part's and those received, with where each one's state is
  // (the home's local index, or the how-manieth received). Every rank calls it alike. The IDs
  // are marked and looked up in tables by ID a window of IDs at a time, each at most
  // `windowBytes` (a word an ID), so that no table of all N IDs need fit one storage block.
  // `lap` is called with the name of each part done (a phase clock's).
  IdList migrate(Kernels& kernels, IdList home, std::span<const std::size_t> sendCounts,
                 std::size_t bodyCount, const Ranks& ranks, std::size_t windowBytes,
                 const Lap& lap);
  // Then `held` (the home) laid out as the walker holds it: every texture's texels in the walker's
  // order, those of bodies that left sent on through MPI (in the order migrate sent their IDs:
  // the home's sorted order, its own part left out), its size what held.sizeFor says. Every rank
  // calls it alike; `lap` is called with the name of each part done but the last (a phase clock's).
  // The textures move a few at a time where all of them would pass `pieceBytes` in one buffer
  // (what leaves, or arrives), and one at a time in pieces of bodies where one texture's would (a
  // share of each rank's list in each piece, the same bits).
  void moveState(Kernels& kernels, HeldBodies& held, const Ranks& ranks, const Lap& lap,
                 std::size_t pieceBytes);
  // Every buffer and texture of the last migration freed (nothing of it is read after moveState):
  // what a rank keeps between migrations where its share is large (DecomposedTree). The host
  // parcels stay: pinned host memory, not the GPU's, and pinning again costs time.
  void release();

 private:
  void sortHomeIds(Kernels& kernels, IdList home);
  std::vector<std::uint32_t> readOthersParts();
  void listWindow(Kernels& kernels, SlotWindow window, const Lap& lap);
  void findSources(Kernels& kernels, SlotWindow window, std::size_t before, std::size_t listed);
  void moveTextures(Kernels& kernels, std::span<const StageTextures::BodyTexture> textures,
                    const Ranks& ranks, const Lap& lap, std::size_t arriving);
  std::vector<std::byte> packLeaving(Kernels& kernels,
                                     std::span<const StageTextures::BodyTexture> textures,
                                     const Lap& lap);
  void layOut(Kernels& kernels, std::span<const StageTextures::BodyTexture> textures,
              glm::ivec2 oldSize, glm::ivec2 size);
  gl::Texture takeTexture(GLenum target, glm::ivec2 size);
  // Piece `piece` of `pieces` of the bodies that move: what each rank sends and receives of them.
  struct MovePiece {
    std::vector<std::size_t> sendFirst, sendCounts, receivedCounts;  // by rank (own 0)
    std::vector<std::uint32_t> senders;  // tree_fetch.comp's, a uvec4 a rank
    std::size_t sent = 0, received = 0;
  };
  MovePiece pieceOf(std::size_t piece, std::size_t pieces, std::size_t rank) const;
  void moveInPieces(Kernels& kernels, const StageTextures::BodyTexture& texture, const Ranks& ranks,
                    std::size_t pieces, glm::ivec2 oldSize, glm::ivec2 size);
  void sendPiece(Kernels& kernels, const StageTextures::BodyTexture& texture,
                 const MovePiece& piece, const Ranks& ranks);
  void layOutPiece(Kernels& kernels, const StageTextures::BodyTexture& texture, GLuint fresh,
                   const MovePiece& piece, bool first, glm::ivec2 size);

  MarkLists lists_;
  // The home's IDs in sorted order; a window's marks, then its table of sources by ID; the
  // walker's IDs and their sources; the IDs received; the parcels of texels sent and received.
  GrowingBuffer sorted_, marks_, walker_, sources_, arrivedIds_, parcel_, arrived_, senders_;
  gl::HostParcel readback_, leaving_;  // small reads of large buffers; the leaving texels
  IdList walkerList_;
  std::size_t homeCount_ = 0, ownFirst_ = 0, own_ = 0, arrivedCount_ = 0;
  std::vector<std::size_t> sendCounts_, receivedCounts_;  // of others, by rank (own part 0)
  // A texture left over from the last layout, for the next texture of its kind and size.
  struct Spare {
    gl::Texture texture;
    glm::ivec2 size{0, 0};
  };
  std::map<GLenum, Spare> spares_;
};

}  // namespace nbody::tree
