#pragma once
// The tree's last stage: one work group per group of `groupSize` consecutive sorted bodies walks
// the tree, the group sharing one interaction list built with prefix sums and evaluated from
// shared-memory tiles (shaders/tree_walk.comp). It walks any contiguous range of groups, and
// leaves integer counts of each walked group's lists. Also here: the ring its stack keeps in
// shared memory, tuned where automatic (RingTuner), and the sum of the potential's group terms.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <glm/vec2.hpp>

#include "engines/tree/tree_buffers.h"
#include "engines/tree/tree_kernels.h"
#include "engines/tree/tree_settings.h"
#include "gl/limits.h"
#include "physics/state.h"

namespace nbody::tree {

// What a walk writes: accelerations (into the image at kAccelerationImageUnit), each group's sum
// of m_i phi_i (kPotential), each body's potential G phi_i (into that image's x), or nothing but
// the lists' counts (COUNT_ONLY: list lengths at any N quickly), or each body's |a| / G for the
// relative opening (a coarse walk: estimateSettings).
enum class WalkOutput { accelerations, potential, bodyPotentials, countOnly, estimates };

// Groups [first, last) of a walk: group g holds the sorted bodies [g groupSize, (g + 1) groupSize)
// (the last group fewer). `last` is clipped to the group count; the default is every group.
struct GroupRange {
  std::size_t first = 0;
  std::size_t last = std::numeric_limits<std::size_t>::max();
};

// A walk shared out among ranks (tree_share.h) in parts of at most `groups` groups (0: the walk's
// own part size), and what it does after issuing each part's dispatch: `afterPart` gets the
// part's groups. In place of the walk's glFinish between parts, it waits for the part before
// (so that the CPU waits for the GPU regularly: see WalkStage::kPartGroups). It may change the
// current program (the walk sets its own again), the shader storage bindings and image unit 0
// (TreeGravity binds the walk's again); nothing else. `order` (0: none, the groups in index
// order) is a buffer of a word a group, at its index: the group the walk takes in its place, a
// permutation of each part's groups (heavyFirstOrder), which changes no bit, only the order in
// which the GPU runs them.
struct WalkParts {
  std::size_t groups = 0;
  std::function<void(GroupRange)> afterPart;
  GLuint order = 0;
};
// The groups of a part when a rank's walk of `groups` groups is handed on in parts: eight parts,
// so that the copies of one overlap the walk of the next; but no part of fewer than 64 groups a
// multiprocessor (where the GPU says how many it has): a smaller dispatch spends much of its time
// in its last, half-empty wave (a million bodies on two H100s ran 11% slower in parts of 1024
// groups than in one).
std::size_t partGroupsOf(std::size_t groups, const gl::Limits& limits);

// The groups of `range` in the order in which a walk in parts of `partGroups` groups takes them
// where the heaviest go first (an experiment: NBODY_WALK_ORDER=heavy-first, docs/development.md):
// within each part, the groups of over four times the part's mean weight, heaviest first (ties by
// index), then the others in index order, so that the longest walks do not start in the part's
// last wave. `weight(g)` is group g's expected cost. A word a group from 0 to range.last (the
// identity below range.first): each part's groups once.
std::vector<std::uint32_t> heavyFirstOrder(GroupRange range, std::size_t partGroups,
                                           const std::function<double(std::size_t)>& weight);

// The coarse walk that estimates |a| for `settings`' relative opening: monopoles, the geometric
// test at estimateTheta, groups of estimateGroupSize (or groupSize, if larger), the least ring, no
// small cells.
TreeSettings estimateSettings(TreeSettings settings);
// The coarse walk's groups that hold every body of `range` (clipped) of the walk with `settings`:
// each body's estimate comes from the coarse group that holds it, whatever range is walked.
GroupRange estimateGroupsOf(GroupRange range, std::size_t bodyCount, const TreeSettings& settings);

// Groups of `bodyCount` bodies with `settings`.
std::size_t groupCountOf(std::size_t bodyCount, const TreeSettings& settings);
// `range` with `last` clipped to `groups`; throws std::invalid_argument where it starts past its
// end.
GroupRange clipped(GroupRange range, std::size_t groups);

// What one group's lists held: the interactions of each of its bodies (body-body and with cells'
// multipoles; a cell costs about 3 body-body pairs with quadrupoles), and the nodes it tested.
struct GroupCounts {
  std::uint32_t bodyInteractions = 0, cellInteractions = 0, nodesTested = 0;
};

// List lengths over the walked groups, from their integer counts.
struct ListStatistics {
  double bodyInteractionsPerBody = 0;  // body-body
  double cellInteractionsPerBody = 0;  // body-cell (multipoles)
  double nodesTestedPerGroup = 0;
  std::size_t mostBodyInteractions = 0;  // of any one group: a group far from compact shows here
  std::size_t stackOverflows = 0;        // walk rounds whose children did not fit the stack (slow)
  std::size_t stackRowsSpilled = 0;      // rows of the stack moved from the ring to the spill pool
  std::size_t groups = 0;
  // Body-body and body-cell interactions over the walked groups' bodies, exactly: a sum of
  // integers, which ranks walking parts of the groups add up to one GPU's.
  std::uint64_t interactions = 0;
};

class WalkStage {
 public:
  // The walk runs in dispatches of at most this many groups (1M bodies in groups of 64), and the
  // CPU waits for each before it sends the next: on NVIDIA's driver, GPU work queued for seconds
  // without the CPU waiting for it can be dropped silently, with no GL error, and the context then
  // runs nothing more (docs/tree-gravity.md). Parts change no bit.
  static constexpr std::size_t kPartGroups = 16384;
  void walkInPartsOf(std::size_t groups) { partGroups_ = groups; }  // for tests at small N
  // The groups of each part of a walk handed out in `parts`.
  std::size_t partGroupsFor(const WalkParts& parts) const {
    return parts.groups > 0 ? std::min(parts.groups, partGroups_) : partGroups_;
  }

  // Whether the walk with `settings` finds its list positions with subgroup arithmetic (automatic:
  // where the GPU offers it in compute shaders and its subgroups tile the group's invocations).
  static bool usesSubgroups(const gl::Limits& limits, const TreeSettings& settings);
  // Bytes of shared memory the walk with `settings` declares on this GPU (the potential's
  // variant, the largest).
  static std::size_t sharedBytes(const gl::Limits& limits, const TreeSettings& settings);
  // Throws std::runtime_error where the walk with `settings` cannot run on this GPU: subgroups
  // asked for where there are none, or too little shared memory.
  static void checkFits(const gl::Limits& limits, const TreeSettings& settings);

  // The walk's program for these settings and output (built the first time).
  gl::UniformProgram& program(Kernels& kernels, const TreeSettings& settings,
                              const StepParams& params, WalkOutput output,
                              const SlotMap& slots = {}, bool ordered = false) const;
  // Walks the groups of `range` (clipped) of the tree of `bodyCount` bodies that the build left in
  // the buffers, writing `output` for exactly those groups' bodies.
  // A walker's groups read nodes and bodies through `slots` (tree_layout.h).
  void run(Kernels& kernels, const TreeBuffers& buffers, std::size_t bodyCount, glm::ivec2 size,
           const StepParams& params, const TreeSettings& settings, WalkOutput output,
           GroupRange range, const WalkParts& parts = {}, const SlotMap& slots = {});

  // The last run's groups, and their lists (read back: waits for the GPU).
  GroupRange lastRange() const { return last_; }
  ListStatistics listStatistics(const TreeBuffers& buffers) const;
  std::vector<GroupCounts> groupCounts(const TreeBuffers& buffers) const;
  // The sum of the potential terms of groups [0, groups) (a walk of them for WalkOutput::potential
  // before): each group's double read back (8 bytes a group) and added exactly
  // (util/exact_sum.h), so that the sum does not depend on the groups' order, nor on how ranks
  // would split them.
  double sumPotentials(const TreeBuffers& buffers, std::size_t groups) const;

 private:
  std::vector<std::uint32_t> readCounters(
      const TreeBuffers& buffers) const;  // 4 words a group of last_

  std::size_t partGroups_ = kPartGroups;
  GroupRange last_{0, 0};
  std::size_t lastBodies_ = 0, lastGroupSize_ = 1;
};

// The stack's ring where settings.stackSize is 0 (automatic). The least, 4 rows, leaves the most
// shared memory, so the most walks per SM, which runs fastest as long as the walk waits on its
// arithmetic; a deep tree that makes many walks at once wait on memory can run faster with the
// deepest ring that fits, and which one wins follows the GPU's memory (docs/tree-gravity.md). So
// above kTunedAbove bodies the first evaluation for each N and settings times both and keeps the
// faster for the next ones: a one-time wait, and no bit changes, as the ring changes none.
class RingTuner {
 public:
  static constexpr std::size_t kTunedAbove = std::size_t{1} << 22;
  void tuneAbove(std::size_t bodies) { tunedAbove_ = bodies; }  // for tests at small N

  // Whether an evaluation with `settings` tunes the ring first: automatic, above the threshold,
  // not tuned yet for this N and settings.
  bool needsTuning(std::size_t bodyCount, const TreeSettings& settings) const;
  std::optional<int> tuned(std::size_t bodyCount, const TreeSettings& settings) const;
  // `settings` with an automatic ring resolved: the tuned one, else the least.
  TreeSettings resolve(std::size_t bodyCount, TreeSettings settings) const;

  // Compiles the walk for the least ring and the deepest that fits (`compile`), evaluates once
  // untimed (the first evaluation at an N allocates buffers and programs, which would count against
  // whichever ring paid for them), then evaluates with each ring between two glFinish (`evaluate`)
  // and keeps the faster. The last evaluation is the deepest ring's.
  using Trial = std::function<void(const TreeSettings&)>;
  void tune(std::size_t bodyCount, const TreeSettings& settings, const gl::Limits& limits,
            const Trial& compile, const Trial& evaluate);
  // One evaluation with `settings`' ring: resolved, or tuned first where it needs tuning (then the
  // trials are the evaluation: the last one's output stands). `evaluate` learns which it runs: a
  // trial (timed: nothing may be handed on part by part) or the evaluation itself.
  using Evaluation = std::function<void(const TreeSettings&, bool trial)>;
  void evaluate(std::size_t bodyCount, const TreeSettings& settings, const gl::Limits& limits,
                const Trial& compile, const Evaluation& evaluate);

 private:
  static std::array<int, 2> candidates(const gl::Limits& limits, TreeSettings settings);
  std::map<std::pair<std::size_t, std::string>, int> tuned_;  // by N and describe(settings)
  std::size_t tunedAbove_ = kTunedAbove;
};

}  // namespace nbody::tree
