#pragma once
// The knobs of the Barnes-Hut tree (TreeGravity): what they trade, and their defaults.

#include <cstddef>
#include <string>

namespace nbody {

struct TreeSettings {
  // Opening angle (0 to 1): a cell is used whole only when the group's box is farther from its
  // centre of mass than l / theta + delta (l its largest side, delta the centre of mass's distance
  // from the box's centre). Smaller: more accurate, lists ~ theta^-3. 0 opens every cell (direct
  // summation). With the relative opening (the default) it bounds how near a cell may be used at
  // all: at 1 no nearer than where its expansion still converges (l + delta from its centre of
  // mass), which was the fastest and the most accurate of 0.8, 0.9 and 1. Alone, 0.43 kept the
  // uniform sphere's median error under 2e-4 up to 16.8M bodies.
  double theta = 1.0;
  // How a cell is judged: by theta alone (geometric), or relative to the accelerations of the
  // group's bodies as well (GADGET's criterion): a cell theta accepts is opened where the error it
  // leaves, ~G M b^p / d^(p+2) (b = theta x its opening radius, d the distance from the group's
  // box, p = expansionOrder + 1), exceeds `accuracy` times the least |a| of the group. |a| comes
  // from a coarse walk of the same tree (monopoles, estimateTheta) just before, so the result
  // depends on the state alone. theta then bounds how near a cell may be used at all.
  enum class Opening { geometric, relative };
  // The defaults keep the uniform sphere's median error (the binding target) under 2e-4 up to
  // 16.8M bodies, at 1.3-1.8x the speed of theta 0.43 alone (docs/performance-history.md, round
  // 21).
  Opening opening = Opening::relative;
  double accuracy = 0.00065;
  double estimateTheta = 2.0;
  int estimateGroupSize =
      128;  // the coarse walk's groups (at least groupSize): fewer, cheaper walks
  // 1: monopoles; 2: monopoles + quadrupoles (a cell costs ~3 body-body interactions instead of
  // ~1, and gives far more accuracy per interaction at these error levels).
  int expansionOrder = 2;
  // Bodies per group, sharing one list (a power of two, 16 to 256). Larger: fewer walks, more
  // accurate (the box test is conservative for more bodies), but the box grows and so do the lists.
  int groupSize = 64;
  // Bodies each walk invocation holds (1 or 2): groupSize / bodiesPerThread invocations walk a
  // group, and each tile entry read from shared memory serves this many bodies (fewer loads per
  // interaction, more independent work, but twice the registers, so fewer walks per SM). Same
  // lists, so the same accuracy; more walk rounds.
  int bodiesPerThread = 1;
  // An opened cell of at most this many bodies gives its bodies to the body list instead of its
  // children to the stack: fewer nodes tested, more body-body interactions.
  int leafSize = 8;
  // An accepted cell of at most this many bodies interacts body by body (exact, and cheaper than
  // a quadrupole once it holds <= ~3 bodies).
  int smallCell = 3;
  // Entries of a shared-memory tile (0: groupSize; else a multiple of it, up to 4x): larger tiles
  // pay the two barriers of a tile over more interactions, at more shared memory.
  int tileSize = 0;
  // The walk's stack holds stackNodes nodes in all (a multiple of a row of groupSize /
  // bodiesPerThread nodes, at most kMostStackNodes): its top in shared memory, a ring of stackSize
  // (a power of two from 4 rows to 4096; 0: automatic, RingTuner in tree_walk.h), the rest spilled
  // to a slot of a pool in GPU memory that a group takes when its ring first overflows (none where
  // stackNodes <= the ring). The walk leaves up to a row of nodes on the stack per tree level, so a
  // deep tree (a Plummer core at 16M bodies) needs thousands. Where they are kept changes no bit of
  // the result, only speed: the ring's shared memory limits how many walks an SM runs, a spilled
  // row costs a round trip to memory. Past stackNodes the walk takes fewer nodes a round and an
  // opened node adds its bodies directly: exact, but slow, and the bits then depend on it.
  int stackSize = 0;
  int stackNodes = 12288;
  static constexpr int kMostStackNodes = 12288;
  // How the walk's invocations find where their nodes go in the round's lists: prefix sums through
  // shared memory and a barrier per step (any GPU), or subgroup arithmetic (GL_KHR_shader_subgroup:
  // two barriers a round; NVIDIA has it, Mesa's llvmpipe does not). automatic: subgroups where the
  // GPU offers them for the group's width. Same lists, so the same accuracy; not the same bits.
  enum class PrefixSums { automatic, sharedMemory, subgroups };
  PrefixSums prefixSums = PrefixSums::automatic;
};

// Throws std::invalid_argument naming the first setting out of range.
void validate(const TreeSettings& settings);

// The defaults for `bodies` bodies on a GPU of `multiprocessors` SMs (16 where unknown): groups of
// 64, or 32 where 64 would leave fewer than 4 work groups per SM (small N: more, shorter walks).
TreeSettings resolveTreeSettings(std::size_t bodies, int multiprocessors = 16);

std::string describe(const TreeSettings& settings);  // "theta=0.43 order=2 group=64 ..."
// Whether the relative opening applies (at theta 0 every cell is opened anyway).
bool opensRelative(const TreeSettings& settings);
int tileOf(const TreeSettings& settings);         // tileSize, or groupSize for 0
int walkThreadsOf(const TreeSettings& settings);  // invocations a walk: groupSize / bodiesPerThread
int stackOf(const TreeSettings& settings);        // stackSize, or the least (4 rows) for 0
int spillRowsOf(const TreeSettings& settings);    // rows of the stack beyond the ring

}  // namespace nbody
