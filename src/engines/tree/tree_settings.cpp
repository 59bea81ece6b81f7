#include "engines/tree/tree_settings.h"

#include "engines/engine.h"  // formatNumber

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace nbody {

void validate(const TreeSettings& s) {
  const auto refuse = [](const std::string& what) {
    throw std::invalid_argument("tree settings: " + what);
  };
  if (!(s.theta >= 0.0 && s.theta <= 1.0))
    refuse("theta must be between 0 and 1, not " + std::to_string(s.theta));
  if (!(s.accuracy > 0.0 && s.accuracy <= 1.0))
    refuse("the relative opening's accuracy must be above 0 and at most 1, not " +
           std::to_string(s.accuracy));
  if (!(s.estimateTheta > 0.0 && s.estimateTheta <= 4.0))
    refuse("the estimate's theta must be above 0 and at most 4, not " +
           std::to_string(s.estimateTheta));
  if (s.estimateGroupSize < 16 || s.estimateGroupSize > 256 ||
      !std::has_single_bit(unsigned(s.estimateGroupSize)))
    refuse("the estimate's group size must be a power of two from 16 to 256, not " +
           std::to_string(s.estimateGroupSize));
  if (s.expansionOrder != 1 && s.expansionOrder != 2)
    refuse("the expansion order must be 1 (monopole) or 2 (quadrupole), not " +
           std::to_string(s.expansionOrder));
  if (s.groupSize < 16 || s.groupSize > 256 || !std::has_single_bit(unsigned(s.groupSize)))
    refuse("the group size must be a power of two from 16 to 256, not " +
           std::to_string(s.groupSize));
  if (s.bodiesPerThread != 1 && s.bodiesPerThread != 2)
    refuse("bodies per thread must be 1 or 2, not " + std::to_string(s.bodiesPerThread));
  if (s.leafSize < 1) refuse("the leaf size must be at least 1, not " + std::to_string(s.leafSize));
  if (s.smallCell < 0)
    refuse("the small-cell size must be at least 0, not " + std::to_string(s.smallCell));
  if (s.tileSize != 0 && (s.tileSize % s.groupSize != 0 || s.tileSize > 4 * s.groupSize))
    refuse("the tile size must be 0 or 1 to 4 times the group size, not " +
           std::to_string(s.tileSize));
  const int threads = walkThreadsOf(s);
  if (s.stackSize != 0 && (s.stackSize < 4 * threads || s.stackSize > 4096 ||
                           !std::has_single_bit(unsigned(s.stackSize))))
    refuse(
        "the stack's ring must be 0 (4 rows) or a power of two from 4 x group size / bodies per "
        "thread (" +
        std::to_string(4 * threads) + ") to 4096 nodes, not " + std::to_string(s.stackSize));
  if (s.stackNodes < 0 || s.stackNodes > TreeSettings::kMostStackNodes ||
      s.stackNodes % threads != 0)
    refuse("the stack's nodes must be a multiple of group size / bodies per thread (" +
           std::to_string(threads) + ") from 0 to " +
           std::to_string(TreeSettings::kMostStackNodes) + ", not " + std::to_string(s.stackNodes));
}

int tileOf(const TreeSettings& s) { return s.tileSize > 0 ? s.tileSize : s.groupSize; }
int walkThreadsOf(const TreeSettings& s) { return s.groupSize / s.bodiesPerThread; }
int stackOf(const TreeSettings& s) { return s.stackSize > 0 ? s.stackSize : 4 * walkThreadsOf(s); }
int spillRowsOf(const TreeSettings& s) {
  return std::max(0, s.stackNodes - stackOf(s)) / walkThreadsOf(s);
}

TreeSettings resolveTreeSettings(std::size_t bodies, int multiprocessors) {
  TreeSettings settings;
  // Groups of 64 (the default): shorter lists than 128, and the walk rounds they add are cheap, a
  // subgroup's total coming from its scan (docs/tree-gravity.md). 32 at small N, so that every SM
  // still gets four.
  const std::size_t groupsOf64 = (bodies + 63) / 64;
  if (groupsOf64 < std::size_t(4 * multiprocessors)) settings.groupSize = 32;
  return settings;
}

bool opensRelative(const TreeSettings& s) {
  return s.opening == TreeSettings::Opening::relative && s.theta > 0.0;
}

std::string describe(const TreeSettings& s) {
  return "theta=" + std::to_string(s.theta).substr(0, 4) +
         (opensRelative(s) ? " relative=" + formatNumber(s.accuracy) +
                                 " estimate=" + formatNumber(s.estimateTheta) + "/" +
                                 std::to_string(s.estimateGroupSize)
                           : "") +
         " order=" + std::to_string(s.expansionOrder) + " group=" + std::to_string(s.groupSize) +
         " bodies/thread=" + std::to_string(s.bodiesPerThread) +
         " leaf=" + std::to_string(s.leafSize) + " small-cell=" + std::to_string(s.smallCell) +
         " tile=" + std::to_string(tileOf(s)) +
         " stack=" + (s.stackSize > 0 ? std::to_string(s.stackSize) : std::string("auto")) + "/" +
         std::to_string(s.stackNodes) + " prefix-sums=" +
         (s.prefixSums == TreeSettings::PrefixSums::automatic      ? "auto"
          : s.prefixSums == TreeSettings::PrefixSums::sharedMemory ? "shared"
                                                                   : "subgroup");
}

}  // namespace nbody
