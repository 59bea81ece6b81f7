#pragma once
// A decomposed tree's local essential trees (docs/decomposed-tree-design.md, section 6): what each
// rank sends each other rank of its nodes and bodies so that the other's walk finds every record
// it reads. Each walker cuts its groups into chunks and every rank learns their boxes; each rank
// then selects, on the GPU (shaders/tree_let.comp), what a walk of any group of a chunk could
// read of its own segment, packs it by receiver and sends it (MPI_Alltoallv); each walker places
// what it received after its own nodes and around its own bodies, and finds it through its slot
// hash. Which records travel changes no bit of a walk (I1): only whether they are there.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <glm/vec4.hpp>

#include "engines/tree/tree_buffers.h"
#include "engines/tree/tree_kernels.h"
#include "engines/tree/tree_lists.h"
#include "engines/tree/tree_settings.h"
#include "engines/tree/tree_straddling.h"
#include "gl/host_parcel.h"
#include "gl/objects.h"
#include "parallel/ranks.h"

namespace nbody::tree {

// A run of a walker's groups: the least and greatest coordinates of its bodies (floats' minima and
// maxima: exact) as float bits, in lo's w the rank that walks it, in hi's w the bits of the least
// |a| / G of its bodies (the relative opening's, from the coarse walk). tree_let.comp's Chunk.
struct LetChunk {
  std::array<std::uint32_t, 4> lo, hi;
};

// The most ranks a LET serves: a bit a rank in a word of marks (tree_let.comp's MAX_RANKS).
constexpr int kLetMostRanks = 32;

// Bodies a chunk holds: about 1024, whole groups of the walk and of the coarse walk.
std::size_t letChunkBodies(const TreeSettings& settings);

// Which walks may read what of a segment: bit r of a word is set where rank r's may. A word a
// node of the segment, at its slot (position - first), and a word a body. The words stay on the
// GPU (LetSelection's); here only where they are.
struct LetMarks {
  std::size_t first = 0, count = 0;  // the segment's
  bool overflowed = false;           // a chunk's walk outgrew the kernel's stack: marks are missing
};

// What a rank sends or receives: nodes (global index, then the words of its two test and two
// quadrupole records: 68 bytes) and bodies (sorted position, then position and mass: 20 bytes),
// each grouped by the rank they go to or came from, in rank order, ascending within a rank.
struct LetNode {
  std::uint32_t index;
  std::array<std::uint32_t, 16> words;
};
struct LetBody {
  std::uint32_t position;
  std::array<std::uint32_t, 4> words;
};
// tree_pack.comp writes them as they are: a reference word, then the record's words.
static_assert(sizeof(LetNode) == 17 * 4 && sizeof(LetBody) == 5 * 4 &&
              sizeof(FrontierItem) == 25 * 4);
// The records lie in a LetSelection's host memory (gl::HostParcel), valid until its next round.
struct LetParts {
  std::span<const LetNode> nodes;
  std::span<const LetBody> bodies;
  std::vector<std::size_t> nodeCounts, bodyCounts;  // a rank each
  std::size_t bytes() const;
};

// The LET's work on this rank's GPU: its chunks, the selection (tree_let.comp) on its tree (its
// segment [first, first + count) in place, with the straddling and frontier nodes through `slots`'
// hash, as after the top moments pass), and the packing of what it selected.
class LetSelection {
 public:
  // The chunks of this walker's own bodies (where `held` says), `chunkBodies` each (the last
  // fewer), on the GPU (tree_chunks.comp); with the coarse walk's estimates where asked.
  std::vector<LetChunk> chunks(Kernels& kernels, const SlotMap& held, std::size_t chunkBodies,
                               int rank, bool withEstimates);
  // The marks for the walks of `chunks` (other ranks' only), under the segment `starts` (K + 1,
  // the last N), the walk's `settings` (their opening, order, theta, accuracy, leaf size and small
  // cells) and the square of the scale of its opening radii.
  LetMarks select(Kernels& kernels, const SlotMap& slots, std::span<const LetChunk> chunks,
                  std::span<const std::size_t> starts, int rank, const TreeSettings& settings,
                  double openingScale2);
  // The records `marks` select, listed by receiver (tree_lists.comp) and packed (tree_pack.comp)
  // on the GPU from this rank's arrays (its bodies where `held` says); the nodes every rank holds
  // (`top`'s straddling and frontier nodes) left out.
  // `lap` is called with the name of each part done but the last.
  LetParts pack(Kernels& kernels, const LetMarks& marks, const TopArea& top, const SlotMap& held,
                int ranks, const Lap& lap = noLap);
  // Sends every rank its part of `sent` (MPI_Alltoallv, from and into host memory the GPU copies
  // out of and into); returns what this rank received. Every rank calls it alike.
  LetParts exchange(const LetParts& sent, const Ranks& ranks, const Lap& lap = noLap);
  // What tree_pack.comp copies a record: a body's 4 words, a node's 16, a frontier node's 24.
  enum class Records { bodies = 0, nodes = 1, frontierNodes = 2 };
  // The frontier items this walker holds (TopArea::heldFrontier), read in two dispatches.
  std::vector<FrontierItem> frontier(Kernels& kernels, const TopArea& top, const Lap& lap = noLap);
  // Places what walker `rank` received, in place of what it held before (`held`: its segment, and
  // where its own bodies are; the arrays hold N bodies, more than the segment and its LET can):
  // the nodes after the top area's, the bodies of lower ranks before its own (which move) and of
  // higher ranks after them, so that every body range a walk reads lies contiguous; writes the
  // slot hash of the top area's nodes and of everything received. On the GPU (tree_hash.comp).
  // Returns the walk's slot map.
  // The records the walker's arrays must hold (TreeBuffers::capacity) for place: its bodies and
  // those received, the nodes placed and those received + 1.
  static std::size_t slotsToPlace(const LetParts& received, const TopArea& top,
                                  const SlotMap& held);
  SlotMap place(Kernels& kernels, TreeBuffers& buffers, const LetParts& received,
                const TopArea& top, const SlotMap& held, int rank);

 private:
  // Where a packing reads its slots and what it adds to them: `first` of the list in `buffer`,
  // `count` of them; `read` added to read a record, `reference` to name it.
  struct PackedList {
    GLuint buffer;
    std::size_t first, count, read, reference;
  };
  // The listed records, each its reference word and then its words, into parcel_ from its word
  // `firstWord` (tree_pack.comp).
  void packInto(Kernels& kernels, const PackedList& list, Records records, std::size_t firstWord);
  // The same, read back.
  template <typename Record>
  std::vector<Record> packed(Kernels& kernels, const PackedList& list, Records records);
  // The same for slots given here.
  template <typename Record>
  std::vector<Record> packed(Kernels& kernels, std::span<const std::uint32_t> slots,
                             Records records);
  void placeRecords(Kernels& kernels, std::size_t firstByte, std::size_t count, std::size_t words,
                    int place, const std::vector<std::pair<const char*, std::size_t>>& uniforms);

  MarkLists lists_;
  GrowingBuffer chunks_, marks_, slots_, parcel_;
  gl::HostParcel sent_, received_;  // a round's records, as MPI sends and receives them
  gl::HostParcel readback_;         // small reads of large buffers
};

}  // namespace nbody::tree
