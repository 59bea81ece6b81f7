#pragma once
// Barnes-Hut gravity on the GPU in GLSL compute shaders: the tree is rebuilt at every evaluation,
// deterministically (the same input gives the same bits on the same GPU), for any N from 1 up to
// what the GPU's memory and shader storage blocks hold. Subgroup operations only where the GPU
// offers them, for the walk's prefix sums (TreeSettings::prefixSums).
//
// One evaluation, ~30 dispatches in three stages, each in its own files:
//   sort     tree_sort.h: bounding box, 63-bit Hilbert keys, stable radix sort of (key, index)
//   build    tree_build.h: Karras binary radix tree (all N - 1 nodes at once) + bodies gathered
//            into key order; then the moments bottom-up in one dispatch
//   walk     tree_walk.h: one work group per group of `groupSize` consecutive sorted bodies,
//            sharing one interaction list; any contiguous range of groups
// TreeGravity runs them in order on its buffers (tree_buffers.h) and kernels (tree_kernels.h),
// with one ring of timestamp queries across them (lastTimeSplit).
//
// Why a binary radix tree and not an octree level by level: it is built in one dispatch for every
// N (an octree needs a scan and a compaction per level, ~3 dispatches x 21 levels), every node is a
// contiguous range of sorted bodies (so any node can serve as a leaf of any size at walk time:
// leafSize is a uniform, not a build option), and its tight boxes split one axis at a time, so a
// cell is accepted as soon as half of it would be. Its cost: ~2x the nodes of an octree, each
// tested by one invocation of a group walking in parallel. docs/tree-gravity.md has the design's
// figures, its cost model and the knobs to sweep (docs/experiments/tree_probe.cpp).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <glm/vec2.hpp>

#include "engines/tree/tree_buffers.h"
#include "engines/tree/tree_kernels.h"
#include "engines/tree/tree_settings.h"
#include "engines/tree/tree_walk.h"
#include "gl/growing_buffer.h"
#include "gl/objects.h"
#include "gl/timestamp_ring.h"
#include "physics/state.h"

namespace nbody {

class TreeGravity {
 public:
  // Needs a current OpenGL 4.3+ context (compute shaders, shader storage, double-precision GLSL).
  // Throws std::runtime_error saying what is missing. Its arrays move into textures beyond one
  // storage block of this GPU, or of `arrays` (tests take smaller ones, to reach the texture path
  // at small N).
  TreeGravity();
  explicit TreeGravity(const tree::ArrayLimits& arrays);
  ~TreeGravity();
  TreeGravity(TreeGravity&&) noexcept;
  TreeGravity& operator=(TreeGravity&&) noexcept;

  // Accelerations (G included) of the `bodyCount` bodies whose position + mass are in
  // `positionMass` (RGBA32F GL_TEXTURE_2D of `size` texels, body i at texel (i % size.x,
  // i / size.x); texels past bodyCount are ignored), written with imageStore into layer 0 of
  // `accelerationArray` (RGBA32F GL_TEXTURE_2D_ARRAY of size.x x size.y, >= 1 layer; .xyz the
  // acceleration, .w = 0) for every body of the walk's `groups` (all by default; see GroupRange),
  // and for no other. Issues GL work only (no readback, no glFinish but when it tunes the ring or
  // walks in parts: tree_walk.h) and ends with the glMemoryBarrier that texelFetch, imageLoad and
  // texture reads of the result need. Changes the current program, texture unit 0, image unit 0,
  // the shader storage bindings 0..18, and, where the arrays are in textures, texture units 1..13
  // and image units 1..7. Throws std::invalid_argument for bad settings, sizes or
  // groups, std::runtime_error where N does not fit (see checkCapacity). The automatic ring
  // (settings.stackSize 0) is tuned by the first evaluation above RingTuner::kTunedAbove bodies.
  //
  // A caller that shares the walk out (the distributed engine) evaluates groups [first, last) of
  // groupCount(bodyCount, settings): every body of those groups gets the acceleration a whole walk
  // gives it, bit for bit, as each group walks the same tree alone. Group g holds the sorted
  // bodies [g groupSize, (g + 1) groupSize) (fewer in the last), sortedBodies() gives their
  // indices, and groupCounts() what each group's lists held, for cutting the next ranges. `parts`
  // lets it pass each part of the walk on as the GPU works on the next (tree_walk.h); an evaluation
  // that tunes the ring walks without them (its trials walk every part again).
  using GroupRange = tree::GroupRange;
  void evaluate(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                const StepParams& params, const TreeSettings& settings, GLuint accelerationArray,
                GroupRange groups = {}, const tree::WalkParts& parts = {});
  static std::size_t groupCount(std::size_t bodyCount, const TreeSettings& settings) {
    return tree::groupCountOf(bodyCount, settings);
  }

  static constexpr std::size_t kRingTunedAbove = tree::RingTuner::kTunedAbove;
  void tuneRingAbove(std::size_t bodies) { ring_.tuneAbove(bodies); }  // for tests at small N
  std::optional<int> tunedRing(std::size_t bodyCount, const TreeSettings& settings) const {
    return ring_.tuned(bodyCount, settings);
  }
  static constexpr std::size_t kWalkPartGroups = tree::WalkStage::kPartGroups;
  void walkInPartsOf(std::size_t groups) { walk_.walkInPartsOf(groups); }  // for tests at small N
  // The walk's groups taken heaviest first within each part where `on` (tree::heavyFirstOrder, by
  // the coarse walk's counts: under the relative opening only): the same bits, another order on
  // the GPU. Off unless NBODY_WALK_ORDER is heavy-first (an experiment); the last evaluation's
  // groups walked out of their place are counted.
  void walkHeavyFirst(bool on) { heavyFirst_ = on; }
  std::size_t groupsMovedLastWalk() const { return groupsMoved_; }

  // Potential energy W = -1/2 sum_i m_i sum_{j != i} G m_j / sqrt(r_ij^2 + eps^2) through the tree
  // (cells: softened monopole + quadrupole), per-body terms in float32, summed in double on the
  // GPU; reads back 8 bytes (waits for the GPU). Its relative error at the default settings is
  // ~1e-5 (docs/tree-gravity.md); the test bounds it at 3e-5.
  double potentialEnergy(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                         const StepParams& params, const TreeSettings& settings);

  // Each body's potential G phi_i (softened as the accelerations; its own term left out) in x of
  // its texel of layer 0 of `fieldArray` (as evaluate's accelerationArray; y, z and w are 0), for
  // colouring by specific energy. Issues GL work only and ends with the barrier reads need.
  void bodyPotentials(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                      const StepParams& params, const TreeSettings& settings, GLuint fieldArray);
  // Each body's local density, as tree_build.h's computeDensities estimates it with
  // kDensityNeighbours bodies, into x of its texel of layer 0 of `fieldArray`.
  static constexpr std::size_t kDensityNeighbours = 32;
  void bodyDensities(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                     const TreeSettings& settings, GLuint fieldArray);

  // GPU memory the tree's buffers need for `bodies` bodies (besides the state textures): per body
  // (beyond the walk's spill pool, 64 MiB from 32768 bodies on), and in all.
  static std::size_t bytesPerBody();
  static std::size_t bytesFor(std::size_t bodies);
  // Throws std::runtime_error where `bodies` bodies do not fit this GPU: a buffer over the largest
  // shader storage block (the values, 4 bytes a body: beyond 536M bodies on NVIDIA), a texture
  // array taller than the largest texture, or more work groups than two dispatch dimensions hold.
  void checkCapacity(std::size_t bodies, const TreeSettings& settings) const;
  // Whether the walk with `settings` finds its list positions with subgroup arithmetic (automatic:
  // where this GPU offers it in compute shaders and its subgroups tile the group's invocations).
  bool usesSubgroups(const TreeSettings& settings) const {
    return tree::WalkStage::usesSubgroups(kernels_.limits(), settings);
  }

  // GPU time of the newest evaluation whose timestamp queries have finished (never waits);
  // nothing while none has.
  struct TimeSplit {
    double build = 0, moments = 0, estimate = 0,
           walk = 0;  // seconds; estimate: the relative opening's
    double total() const { return build + moments + estimate + walk; }
  };
  std::optional<TimeSplit> lastTimeSplit();

  // List lengths of the last evaluate(), countLists() or potentialEnergy() over the groups it
  // walked, from integer counters (reads them back: waits for the GPU); and each of those groups'
  // counts, in group order.
  using ListStatistics = tree::ListStatistics;
  ListStatistics listStatistics() const { return walk_.listStatistics(buffers_); }
  std::vector<tree::GroupCounts> groupCounts() const { return walk_.groupCounts(buffers_); }

  // The bodies in key order of the last evaluation, and their keys (63-bit Hilbert: hi << 32 | lo);
  // reads them back. For tests of the sort and the tree, and for a caller's group ranges.
  std::vector<std::uint32_t> sortedBodies() const;
  // The buffer of sortedBodies() on the GPU (uint[N]), for a caller's kernels; valid until the next
  // evaluation.
  GLuint sortedOrderBuffer() const { return buffers_.buffer(tree::kValuesIn); }
  std::vector<std::uint64_t> sortedKeys() const;

  // Evaluates the lists only (tree_walk.comp with COUNT_ONLY) of `groups`: the cost model's list
  // lengths at any N, quickly; writes no accelerations.
  ListStatistics countLists(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                            const StepParams& params, const TreeSettings& settings,
                            GroupRange groups = {});

 private:
  void evaluateWith(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                    const StepParams& params, const TreeSettings& settings,
                    GLuint accelerationArray, GroupRange groups, const tree::WalkParts& parts = {});
  // The tree of the bodies built and `groups` walked for `output`: accelerations into
  // `accelerationArray` (timed, for lastTimeSplit), the potential or the lists' counts.
  void buildAndWalk(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                    const StepParams& params, const TreeSettings& settings, tree::WalkOutput output,
                    GroupRange groups, GLuint accelerationArray = 0,
                    const tree::WalkParts& parts = {});
  void prepare(glm::ivec2 size, std::size_t bodyCount, const TreeSettings& settings,
               GroupRange groups);
  // The relative opening's |a| of the bodies of `groups`, by a coarse walk of the tree just built.
  void estimateAccelerations(std::size_t bodyCount, glm::ivec2 size, const StepParams& params,
                             const TreeSettings& settings, GroupRange groups);
  // The arrays sized for `bodyCount` and the kernels told where they are.
  void reserveArrays(std::size_t bodyCount);
  // Where heavyFirst_: the order of the walk of `groups` (in parts as `parts` says) by the coarse
  // walk's counts just made, uploaded; else 0.
  GLuint heavyFirstOrderOf(GroupRange groups, std::size_t bodyCount, const TreeSettings& settings,
                           const tree::WalkParts& parts);

  tree::Kernels kernels_;
  tree::ArrayLimits arrayLimits_;
  tree::TreeBuffers buffers_;
  tree::WalkStage walk_;
  tree::RingTuner ring_;
  gl::TimestampRing timer_;  // marks before the build and after the build, the moments and the walk
  std::size_t lastBodies_ = 0;
  bool heavyFirst_ = false;
  gl::GrowingBuffer order_;
  std::size_t groupsMoved_ = 0;
};

}  // namespace nbody
