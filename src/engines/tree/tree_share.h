#pragma once
// How the ranks of a distributed run share the tree's force work: every rank builds the whole tree
// from the same bits (so every rank has the same tree) and walks a contiguous range of its groups;
// the accelerations of those groups' bodies go, in key order, to every rank, and each rank stores
// the others' into its acceleration image. The ranges follow the previous evaluation's integer
// interaction counts, which every rank holds alike, so the cut never depends on timing and never
// changes a bit.

#include <cstdint>
#include <vector>

#include "engines/rank_exchange.h"
#include "engines/tree/tree_gravity.h"
#include "gl/limits.h"
#include "gl/shader_program.h"

namespace nbody::tree {

class TreeShare {
 public:
  TreeShare();  // needs a current OpenGL 4.3+ context

  // Throws std::runtime_error where `bodyCount` bodies' accelerations (12 bytes a body, in key
  // order) are over one shader storage block, through which the ranks exchange them: 178M bodies
  // on NVIDIA.
  static void checkFits(std::size_t bodyCount, const gl::Limits& limits);

  // This rank's groups of the next evaluation of `bodyCount` bodies in groups of `groupSize`.
  GroupRange groupsOf(std::size_t bodyCount, std::size_t groupSize) const;
  // One evaluation's exchange, overlapped with the walk: begin before `gravity` walks this rank's
  // groups into layer 0 of `accelerationArray`, passing walkParts() to the walk, which hands each
  // part's accelerations on as the GPU walks the next; finish after it: every rank's accelerations
  // there, and the groups' counts for the next cut. Parts change no bit.
  void beginExchange(TreeGravity& gravity, GLuint accelerationArray, std::size_t bodyCount,
                     std::size_t groupSize, RankExchange& exchange);
  tree::WalkParts walkParts(const gl::Limits& limits);
  void finishExchange();

  // Every group's counts of the last exchange, in group order (every rank's).
  const std::vector<GroupCounts>& counts() const { return counts_; }
  // What those lists held in all: body-body plus cell interactions, over every body.
  double interactions(std::size_t bodyCount, std::size_t groupSize) const;

 private:
  std::vector<BodyRange> groupShares(std::size_t groups) const;
  void move(const gl::UniformProgram& program, std::size_t invocations, BodyRange own);
  void gatherUpTo(std::size_t body);
  void gatherCounts(const TreeGravity& gravity, const std::vector<BodyRange>& shares);

  // The exchange under way (beginExchange to finishExchange).
  struct Evaluation {
    TreeGravity* gravity = nullptr;
    GLuint accelerationArray = 0;
    std::size_t bodyCount = 0, groupSize = 1;
    RankExchange* exchange = nullptr;
    std::vector<BodyRange> groupRanges, shares;  // each rank's groups and sorted bodies
    std::size_t gathered = 0;                    // own sorted bodies [own.first, gathered) gathered
  };
  Evaluation now_;

  gl::UniformProgram gather_, scatter_;
  GrowingBuffer sorted_;  // every body's acceleration, in key order
  std::vector<GroupCounts> counts_;
};

}  // namespace nbody::tree
