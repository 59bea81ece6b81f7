#pragma once
// One evaluation of the decomposed tree on this rank (docs/decomposed-tree-design.md, section 6's
// "one evaluation on rank r, in order"): the rank holds the bodies its walker held the evaluation
// before (engines/held_bodies.h: their state, every stage's texels) and is the walker of a segment
// of the single GPU's sorted order. It sorts what it holds under the global box, cuts the segments
// by integer counts, sends each walker the IDs and state of the bodies that crossed into its
// segment, sorts and links its segment, finds the straddling nodes, computes its moments and the
// top ones, exchanges local essential trees (two rounds under the relative opening: the coarse
// walk's, then the main walk's) and walks its own groups, writing their accelerations where it
// holds them. Every body's acceleration is one GPU's, bit for bit (I1: the same interaction list,
// in the same order, from the same words); the update then advances each rank's bodies alone.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <glm/vec2.hpp>

#include "engines/held_bodies.h"
#include "engines/rank_exchange.h"
#include "engines/tree/tree_buffers.h"
#include "engines/tree/tree_decompose.h"
#include "engines/tree/tree_kernels.h"
#include "engines/tree/tree_let.h"
#include "engines/tree/tree_migrate.h"
#include "engines/tree/tree_settings.h"
#include "engines/tree/tree_walk.h"
#include "gl/objects.h"
#include "gl/shader_program.h"
#include "gl/timestamp_ring.h"
#include "parallel/ranks.h"
#include "physics/state.h"

namespace nbody::tree {

class DecomposedTree {
 public:
  // Needs a current OpenGL 4.3+ context. Its arrays move into textures beyond one storage block
  // of this GPU, or of `arrays` (tests take smaller ones, to reach the texture path at small N).
  explicit DecomposedTree(const Ranks& ranks);
  DecomposedTree(const Ranks& ranks, const ArrayLimits& arrays);

  // Accelerations (G included) of the bodies of the whole state (`bodyCount` of them), each rank's
  // walker's into the stage acceleration `stage` of `held`, after laying out `held` anew: on entry
  // what this rank held (their positions at stage `stage`), on return its walker's bodies. Every
  // rank calls it alike; `exchange` counts the LETs' bytes. `chunkBodies` (0: letChunkBodies) sets
  // the LET's chunks. Throws std::invalid_argument for a contact screen (not decomposed yet) or
  // more than 32 ranks, std::runtime_error where a LET outgrows the walker's arrays.
  void evaluate(HeldBodies& held, int stage, std::size_t bodyCount, const StepParams& params,
                const TreeSettings& settings, RankExchange& exchange, std::size_t chunkBodies = 0);

  // Throws std::runtime_error past kMostBodies (physics/state.h's kLargestBodyCount): a body's ID
  // and a node's index (fewer than 2N) are 32-bit words. No storage block bounds N: the migration's
  // table by ID is made a window of IDs at a time (round 40), the bodies that leave or reach a rank
  // move in pieces where one texture's texels would pass a block (round 39), the gathered state in
  // pieces.
  static constexpr std::size_t kMostBodies = kLargestBodyCount;
  static void checkFits(std::size_t bodyCount, int rankCount);
  // The records (bodies, and nodes) a rank's tree arrays are sized for, as planned before a run:
  // its share of `bodyCount` and what the LETs bring, with room (measured: 1.08 x its share at
  // 16.8M bodies on 2 ranks, 1.10 x at 50M; planned: 1.125 x, as its state textures).
  static std::size_t plannedRecords(std::size_t bodyCount, int rankCount);

  // What this rank sent and received in each LET round of the last evaluation (A, then B; B
  // alone under the geometric opening).
  struct LetRound {
    std::size_t nodesSent = 0, bodiesSent = 0, bytesSent = 0;
    std::size_t nodesReceived = 0, bodiesReceived = 0, bytesReceived = 0;
  };
  const std::vector<LetRound>& lastLetRounds() const { return rounds_; }
  // The interactions (body-body and body-cell) in the lists of the last evaluation's walk, of
  // every rank's groups: an exact sum, one GPU's for the same state.
  std::uint64_t lastInteractions() const { return interactions_; }
  // The segment this rank walked in the last evaluation: sorted positions [first, last).
  BodyRange lastSegment() const { return own_; }
  // The GPU's time of the newest evaluation that has finished, in seconds, in parts: sorting and
  // migration (both sorts, the cut, the IDs and state moved), the build (links and straddling
  // nodes), the moments (local, frontier, top), the LETs (chunks, selection, packing, exchange and
  // placing, both rounds) and the walks (coarse and main). Between GL_TIMESTAMP marks, so a part
  // holds the time the GPU waited for this rank's MPI; never waits for the GPU. Each finished
  // evaluation is given once; nothing while none has finished since.
  std::optional<std::vector<std::pair<std::string, double>>> lastTimeSplit();

 private:
  void sortSegment(HeldBodies& held, int stage, std::size_t bodyCount);
  void linkSegment(std::size_t bodyCount);
  SlotMap computeAllMoments(TopArea& top, std::size_t bodyCount, double theta);
  SlotMap letRound(const TopArea& top, const SlotMap& held, std::vector<LetChunk> own,
                   const TreeSettings& settings, double openingScale2);
  void walk(std::size_t bodyCount, const StepParams& params, const TreeSettings& settings,
            const SlotMap& slots);
  void coarseWalk(std::size_t bodyCount, const StepParams& params, const TreeSettings& settings,
                  const SlotMap& slots);
  void growWalker(std::size_t records);
  void reserveWalkerRoom(std::size_t records);
  bool holdsLittle(std::size_t bodyCount) const;
  void closeEvaluation(RankExchange& exchange);

  // Wall time of each phase of an evaluation where NBODY_DECOMPOSED_TIMES is set (on every rank),
  // every rank's said on stderr by rank 0 after each evaluation (each phase ends with glFinish, so
  // the GPU's share is in it; unset, nothing waits). Where it is anything but empty or 1, it names
  // a folder: each rank also appends each phase as it ends to FOLDER/rank-R.txt (a run that never
  // ends an evaluation shows there where each rank is).
  class PhaseClock {
   public:
    void open(const char* setting, int rank);
    void start();
    void lap(const char* phase);
    void report(const Ranks& ranks) const;
    bool on = false;

   private:
    std::chrono::steady_clock::time_point began_, last_;
    std::string text_;
    struct Closing {
      void operator()(std::FILE* file) const { std::fclose(file); }
    };
    std::unique_ptr<std::FILE, Closing> live_;
    std::size_t evaluations_ = 0;
  };

  const Ranks& ranks_;
  PhaseClock clock_;
  gl::TimestampRing timer_;  // the marks between lastTimeSplit's parts
  const Lap lap_ = [this](const char* phase) { clock_.lap(phase); };
  ArrayLimits arrays_;
  Kernels kernels_;
  TreeBuffers buffers_;
  SegmentCut cut_;
  CompositeCounter counter_;
  LetSelection selection_;
  WalkStage walk_;
  RingTuner ring_;           // the walk's ring, tuned by segment size as one GPU's
  GrowingBuffer topStarts_;  // the top pass's starts
  SegmentIds segmentIds_;
  // The last evaluation's: the segment starts (K + 1), this rank's segment, its walker's texture
  // size.
  std::vector<std::size_t> starts_;
  std::size_t bodyCount_ = 0;  // the evaluation's N
  std::uint64_t interactions_ = 0;
  BodyRange own_;
  glm::ivec2 walkerSize_{0, 0};
  std::vector<NodeLinks> straddling_;
  TopologySegment segment_;
  std::vector<LetRound> rounds_;
};

}  // namespace nbody::tree
