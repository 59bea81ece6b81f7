#pragma once
// Barnes-Hut gravity on the GPU in GLSL compute shaders: the tree is rebuilt at every evaluation,
// deterministically (the same input gives the same bits on the same GPU), for any N from 1 up to
// what the GPU's memory and shader storage blocks hold. Subgroup operations only where the GPU
// offers them, for the walk's prefix sums (TreeSettings::prefixSums).
//
// One evaluation, ~30 dispatches (shaders/tree_*.comp, radix_*.comp):
//   build    bounding box (integer atomic min/max: exact) -> 63-bit Hilbert keys on a 2^21 grid,
//            with the first radix digit counted in the same pass -> stable LSD radix sort of
//            (key, body index), 8 passes of 8 bits x (histogram, scan of each digit's row,
//            scatter) -> Karras binary radix tree (all N - 1 nodes at once) + bodies gathered
//            into key order
//   moments  bottom-up in one dispatch (an integer counter per node: the second child to arrive
//            computes it from both, in a fixed order): mass, centre of mass as float hi + lo,
//            second moments about it, tight bounding box, opening radius^2 =
//            (l / theta + delta + |c_lo|)^2
//   walk     one work group per group of `groupSize` consecutive sorted bodies, sharing one
//            interaction list built with prefix sums and evaluated from shared-memory tiles
//            (shaders/tree_walk.comp)
//
// Why a binary radix tree and not an octree level by level: it is built in one dispatch for every
// N (an octree needs a scan and a compaction per level, ~3 dispatches x 21 levels), every node is a
// contiguous range of sorted bodies (so any node can serve as a leaf of any size at walk time:
// leafSize is a uniform, not a build option), and its tight boxes split one axis at a time, so a
// cell is accepted as soon as half of it would be. Its cost: ~2x the nodes of an octree, each
// tested by one invocation of a group walking in parallel (~7% of the walk's instructions at 1M).
//
// Cost model (docs/tree-gravity.md has the figures and the derivation): at N = 1,048,576 and the
// defaults (theta 0.43, quadrupoles, groups of 64, leaves of 8) a Plummer sphere gives per body
// ~1990 body-body + ~2750 cell interactions (a cell ~2.8 body-body: ~9700 equivalents, 1.0e10 in
// all): ~6.5 ms at 75% of the direct kernel's 2.0e12/s on the H200, plus ~0.8 ms of traversal
// (~97 rounds of 64 node tests per group). The build moves ~670 B/body (sort 8 passes x ~32 B,
// moments ~290 B): ~0.3 ms with its ~30 dispatches. Predicted: ~7.7 ms at 1M (130/s; uniform
// sphere ~5 ms), ~145 ms at 16.8M. Knobs to sweep on the GPU (docs/experiments/tree_probe.cpp): theta and the
// order (accuracy against list length), bodiesPerThread (shared loads per interaction), tileSize
// (barriers per interaction), groupSize (list sharing against list length), leafSize and smallCell
// (nodes tested against body-body interactions), stackSize and stackNodes (shared memory,
// hence occupancy, against round trips to memory in deep trees).

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <glm/vec2.hpp>

#include "gl/defines.h"
#include "gl/limits.h"
#include "gl/objects.h"
#include "physics/state.h"
#include "engines/tree/tree_buffers.h"
#include "engines/tree/tree_settings.h"

namespace nbody {

class TreeGravity {
 public:
  // Needs a current OpenGL 4.3+ context (compute shaders, shader storage, double-precision GLSL).
  // Throws std::runtime_error saying what is missing.
  TreeGravity();
  ~TreeGravity();
  TreeGravity(TreeGravity&&) noexcept;
  TreeGravity& operator=(TreeGravity&&) noexcept;

  // Accelerations (G included) of the `bodyCount` bodies whose position + mass are in
  // `positionMass` (RGBA32F GL_TEXTURE_2D of `size` texels, body i at texel (i % size.x,
  // i / size.x); texels past bodyCount are ignored), written with imageStore into layer 0 of
  // `accelerationArray` (RGBA32F GL_TEXTURE_2D_ARRAY of size.x x size.y, >= 1 layer; .xyz the
  // acceleration, .w = 0) for every body i < bodyCount. Issues GL work only (no readback, no
  // glFinish but when it tunes the ring or walks in parts, below) and ends with the glMemoryBarrier
  // that texelFetch, imageLoad and texture reads of the result need. Changes the current program,
  // texture unit 0, image unit 0 and the shader storage bindings 0..18. Throws
  // std::invalid_argument for bad settings or sizes, std::runtime_error where N does not fit (see
  // checkCapacity).
  //
  // The stack's ring (settings.stackSize 0, automatic): the least, 4 rows, leaves the most shared
  // memory, so the most walks per SM, which ran fastest on the H200 up to 8M bodies (1M Plummer:
  // walk 8.5 ms, against 10.0 with 1024 and 15 with 2048); but with the nodes in four arrays a
  // Plummer sphere of 16M ran 3x slower so than with the deepest ring that fits (4096), a uniform
  // sphere 1.9x faster (docs/performance.md, round 11), and since the node records the least is
  // fastest at 16M too (round 12): the verdict follows the GPU's memory, so it is measured. Above
  // kRingTunedAbove bodies the first evaluation for each N and settings therefore compiles the walk
  // for both rings and evaluates once untimed (the first evaluation at an N allocates buffers and
  // programs, which would count against whichever ring paid for them), then with each ring, timed
  // between two glFinish, and keeps the faster for the next ones: a one-time wait, and no bit
  // changes, as the ring changes none.
  static constexpr std::size_t kRingTunedAbove = std::size_t{1} << 22;
  void tuneRingAbove(std::size_t bodies) { ringTunedAbove_ = bodies; }  // for tests at small N
  // The walk runs in dispatches of at most kWalkPartGroups groups (1M bodies in groups of 64), and
  // the CPU waits for each before it sends the next: on NVIDIA's driver, GPU work queued for
  // several seconds without the CPU waiting for it can be dropped silently, with no GL error, and
  // the context then runs nothing more (a 64M-body walk takes 1.3 s at the defaults, a 16M one at
  // theta 0.25 in groups of 64 4 s; docs/performance.md, round 12). Parts change no bit.
  static constexpr std::size_t kWalkPartGroups = 16384;
  void walkInPartsOf(std::size_t groups) { walkPartGroups_ = groups; }  // for tests at small N
  std::optional<int> tunedRing(std::size_t bodyCount, const TreeSettings& settings) const;
  void evaluate(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount, const StepParams& params,
                const TreeSettings& settings, GLuint accelerationArray);

  // Potential energy W = -1/2 sum_i m_i sum_{j != i} G m_j / sqrt(r_ij^2 + eps^2) through the tree
  // (cells: softened monopole + quadrupole), per-body terms in float32, summed in double on the
  // GPU; reads back 8 bytes (waits for the GPU). Its relative error at the default settings is
  // ~1e-5 (8192-body Plummer sphere 1.0e-5, 32768: 8e-6, uniform sphere 2e-6; monopoles alone
  // 3e-5 to 7e-5; float32 summation alone, theta = 0: 1e-8); the test bounds it at 3e-5.
  double potentialEnergy(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount, const StepParams& params,
                         const TreeSettings& settings);

  // GPU memory the tree's buffers need for `bodies` bodies (besides the state textures): per body
  // (beyond the walk's spill pool, 64 MiB from 32768 bodies on), and in all.
  static std::size_t bytesPerBody();
  static std::size_t bytesFor(std::size_t bodies);
  // Throws std::runtime_error where `bodies` bodies do not fit this GPU: a buffer over the largest
  // shader storage block, or more work groups than two dispatch dimensions hold.
  void checkCapacity(std::size_t bodies, const TreeSettings& settings) const;
  // Whether the walk with `settings` finds its list positions with subgroup arithmetic (automatic:
  // where this GPU offers it in compute shaders and its subgroups tile the group's invocations).
  bool usesSubgroups(const TreeSettings& settings) const;

  // GPU time of the newest evaluation whose timestamp queries have finished (never waits);
  // nothing while none has.
  struct TimeSplit {
    double build = 0, moments = 0, walk = 0;  // seconds
    double total() const { return build + moments + walk; }
  };
  std::optional<TimeSplit> lastTimeSplit();

  // List lengths of the last evaluate() or potentialEnergy(), from integer counters (reads them
  // back: waits for the GPU).
  struct ListStatistics {
    double bodyInteractionsPerBody = 0;  // body-body
    double cellInteractionsPerBody = 0;  // body-cell (multipoles)
    double nodesTestedPerGroup = 0;
    std::size_t mostBodyInteractions = 0;  // of any one group: a group far from compact shows here
    std::size_t stackOverflows = 0;        // walk rounds whose children did not fit the stack (slow)
    std::size_t stackRowsSpilled = 0;      // rows of the stack moved from the ring to the spill pool
    std::size_t groups = 0;
  };
  ListStatistics listStatistics() const;

  // The bodies in key order of the last evaluation, and their keys (63-bit Hilbert: hi << 32 | lo);
  // reads them back. For tests of the sort and the tree.
  std::vector<std::uint32_t> sortedBodies() const;
  std::vector<std::uint64_t> sortedKeys() const;

  // Evaluates the lists only (tree_walk.comp with COUNT_ONLY): the cost model's list lengths at
  // any N, quickly; writes no accelerations.
  ListStatistics countLists(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount, const StepParams& params,
                            const TreeSettings& settings);

 private:
  enum class WalkOutput { accelerations, potential, countOnly };
  // Timestamps before the build and after the build, the moments and the walk: GL_TIME_ELAPSED
  // queries would be an error inside a caller's own (bench times whole steps with one).
  struct TimerSlot {
    gl::TimestampQuery marks[4];
    bool pending = false;
  };

  void evaluateWith(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount, const StepParams& params,
                    const TreeSettings& settings, GLuint accelerationArray);
  void tuneRing(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount, const StepParams& params,
                const TreeSettings& settings, GLuint accelerationArray);
  bool tunesRing(std::size_t bodyCount, const TreeSettings& settings) const;  // automatic, above the threshold
  TreeSettings withRing(std::size_t bodyCount, TreeSettings settings) const;  // the automatic ring resolved
  // The tree of the bodies built and walked for `output`: accelerations into `accelerationArray`
  // (timed, for lastTimeSplit), the potential or the lists' counts.
  void buildAndWalk(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount, const StepParams& params,
                    const TreeSettings& settings, WalkOutput output, GLuint accelerationArray = 0);
  std::size_t walkSharedBytes(const TreeSettings& settings) const;
  int deepestRingThatFits(TreeSettings settings) const;
  void build(GLuint positionMass, std::size_t bodyCount, const StepParams& params, const TreeSettings& settings);
  void findBounds(std::size_t bodyCount);
  void makeKeys(std::size_t bodyCount);
  void sortKeys(std::size_t bodyCount);
  void buildTopology(std::size_t bodyCount);
  void computeMoments(std::size_t bodyCount, const TreeSettings& settings);
  void walk(std::size_t bodyCount, glm::ivec2 size, const StepParams& params, const TreeSettings& settings,
            WalkOutput output);
  double sumPotentials(std::size_t groups);
  void prepare(glm::ivec2 size, std::size_t bodyCount, const TreeSettings& settings);
  GLuint program(const std::string& file, const gl::Defines& defines = {});
  GLuint walkProgram(const TreeSettings& settings, const StepParams& params, WalkOutput output);
  void dispatch(std::size_t groups) const;
  TimerSlot* beginTiming();

  gl::Limits limits_;  // the context's, as at construction
  tree::TreeBuffers buffers_;
  std::map<std::pair<std::string, gl::Defines>, gl::Program> programs_;
  std::map<std::pair<std::size_t, std::string>, int> tunedRings_;  // by N and describe(settings)
  std::size_t ringTunedAbove_ = kRingTunedAbove;
  std::size_t walkPartGroups_ = kWalkPartGroups;
  std::vector<TimerSlot> timers_;
  int nextTimer_ = 0;
  std::size_t lastGroups_ = 0, lastBodies_ = 0, lastGroupSize_ = 1;
};

}  // namespace nbody
