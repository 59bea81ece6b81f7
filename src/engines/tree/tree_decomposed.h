#pragma once
// One evaluation of the decomposed tree on this rank (docs/decomposed-tree-design.md, section 6's
// "one evaluation on rank r, in order"): the rank is the home of the bodies its walker held the
// evaluation before (tree_migrate.h) and the walker of a segment of the single GPU's sorted order.
// It sorts its home under the global box, cuts the segments by integer counts, sends each walker
// the IDs of its segment's bodies, fetches their positions, sorts and links its segment, finds the
// straddling nodes, computes its moments and the top ones, exchanges local essential trees (two
// rounds under the relative opening: the coarse walk's, then the main walk's) and walks its own
// groups. Every body's acceleration is one GPU's, bit for bit (I1: the same interaction list, in
// the same order, from the same words).
//
// As built (steps 10a and 10b), every rank still holds every body: the ranks exchange each
// segment's accelerations with their IDs (streamed while the walk runs) and every rank stores all
// of them, so that the rest of
// an engine (the update, outputs, pictures) runs as with the replicated tree. What each rank
// sorts, builds, and walks is its segment, plus what its LETs bring.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec2.hpp>

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
#include "parallel/ranks.h"
#include "physics/state.h"

namespace nbody::tree {

class DecomposedTree {
 public:
  // Needs a current OpenGL 4.3+ context. Its arrays move into textures beyond one storage block
  // of this GPU, or of `arrays` (tests take smaller ones, to reach the texture path at small N).
  explicit DecomposedTree(const Ranks& ranks);
  DecomposedTree(const Ranks& ranks, const ArrayLimits& arrays);

  // Accelerations (G included) of the `bodyCount` bodies of `positionMass` (RGBA32F, `size` texels,
  // body i at texel i, as TreeGravity::evaluate takes them) into layer 0 of `accelerationArray`,
  // on every rank, the segments' accelerations passing through `exchange`; every rank calls it
  // alike. `chunkBodies` (0: letChunkBodies) sets the LET's chunks. Throws std::invalid_argument
  // for a contact screen (not decomposed yet) or more than 32 ranks, std::runtime_error where a LET
  // outgrows the walker's arrays.
  void evaluate(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                const StepParams& params, const TreeSettings& settings, GLuint accelerationArray,
                RankExchange& exchange, std::size_t chunkBodies = 0);

  // What this rank sent and received in each LET round of the last evaluation (A, then B; B
  // alone under the geometric opening).
  struct LetRound {
    std::size_t nodesSent = 0, bodiesSent = 0, bytesSent = 0;
    std::size_t nodesReceived = 0, bodiesReceived = 0, bytesReceived = 0;
  };
  const std::vector<LetRound>& lastLetRounds() const { return rounds_; }
  // The segment this rank walked in the last evaluation: sorted positions [first, last).
  BodyRange lastSegment() const { return own_; }

  // A texture kept from one evaluation to the next while its size holds.
  struct SizedTexture {
    gl::Texture texture;
    glm::ivec2 size{0, 0};
  };

 private:
  void sortSegment(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                   const TreeSettings& settings);
  void fetchBodies(GLuint positionMass, IdList ids, SizedTexture& bodies);
  void linkSegment(std::size_t bodyCount);
  SlotMap computeAllMoments(TopArea& top, std::size_t bodyCount, double theta);
  SlotMap letRound(const TopArea& top, const SlotMap& held, std::vector<LetChunk> own,
                   const TreeSettings& settings, double openingScale2);
  void walk(std::size_t bodyCount, const StepParams& params, const TreeSettings& settings,
            const SlotMap& slots);
  void coarseWalk(std::size_t bodyCount, const StepParams& params, const TreeSettings& settings,
                  const SlotMap& slots);
  void beginShare(std::size_t bodyCount, RankExchange& exchange);
  void gatherUpTo(std::size_t body);
  void finishShare(std::size_t bodyCount, GLuint accelerationArray);

  // Wall time of each phase of an evaluation where NBODY_DECOMPOSED_TIMES is set, said on stderr
  // by every rank (each phase ends with glFinish, so the GPU's share is in it; unset, nothing
  // waits).
  class PhaseClock {
   public:
    void start();
    void lap(const char* phase);
    void report(int rank) const;

   private:
    bool on_ = false;
    std::chrono::steady_clock::time_point last_;
    std::string text_;
  };

  const Ranks& ranks_;
  PhaseClock clock_;
  ArrayLimits arrays_;
  Kernels kernels_;
  TreeBuffers buffers_;
  SegmentCut cut_;
  CompositeCounter counter_;
  LetSelection selection_;
  WalkStage walk_;
  RingTuner ring_;                       // the walk's ring, tuned by segment size as one GPU's
  gl::UniformProgram gather_, scatter_;  // tree_share.comp with IDs
  // Every body's acceleration and ID, in segment order; the top pass's starts.
  GrowingBuffer shared_, topStarts_;
  SegmentIds segmentIds_;
  // The last evaluation's: the segment starts (K + 1), this rank's segment, the IDs of its bodies
  // (ascending, on the GPU), their positions (a texture of walkerSize_), the walk's output; the
  // home's positions.
  std::vector<std::size_t> starts_;
  BodyRange own_;
  IdList walkerIds_;
  SizedTexture walkerBodies_, walkerAccelerations_, homeBodies_;
  glm::ivec2 walkerSize_{0, 0};
  std::vector<NodeLinks> straddling_;
  TopologySegment segment_;
  std::vector<LetRound> rounds_;
  // The sharing under way (beginShare to finishShare): own sorted bodies [own_.first, gathered_)
  // handed on.
  RankExchange* exchange_ = nullptr;
  std::size_t gathered_ = 0, bodyCount_ = 0;
};

}  // namespace nbody::tree
