#include "engines/tree/tree_walk.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "engines/stage_kernel.h"
#include "engines/tree/tree_layout.h"
#include "gl/desktop_calls.h"
#include "util/exact_sum.h"

namespace nbody::tree {
namespace {

// Bytes of shared memory tree_walk.comp declares for `s` (subgroups of `subgroupSize`, 0 for the
// prefix sums through shared memory): stack, the spill slot's number, scan (2 x uvec2 per
// invocation; with subgroups one per subgroup, or per invocation for the potential), the round's
// ranges (2 uints per invocation), body tile (vec4; + index for the potential), cell tile (2 vec4,
// + vec4 and vec2 for quadrupoles).
std::size_t declaredSharedBytes(const TreeSettings& s, bool potential, int subgroupSize) {
  const std::size_t threads = std::size_t(walkThreadsOf(s)), tile = std::size_t(tileOf(s));
  const std::size_t scan = subgroupSize == 0 ? 2 * threads
                           : potential       ? threads
                                             : threads / std::size_t(subgroupSize);
  std::size_t bytes = std::size_t(stackOf(s)) * 4 + 4 + scan * 8 + 2 * threads * 4 + tile * 16;
  bytes += tile * (s.expansionOrder >= 2 ? 16 + 16 + 16 + 8 : 16 + 16);
  if (potential) bytes += tile * 4;
  return bytes;
}

}  // namespace

std::size_t partGroupsOf(std::size_t groups, const gl::Limits& limits) {
  const std::size_t least = 64 * std::size_t(std::max(limits.multiprocessors, 0));
  return std::max<std::size_t>({1, (groups + 7) / 8, least});
}

TreeSettings estimateSettings(TreeSettings settings) {
  settings.expansionOrder = 1;
  settings.opening = TreeSettings::Opening::geometric;
  settings.groupSize = std::max(settings.groupSize, settings.estimateGroupSize);
  settings.bodiesPerThread = 1;
  settings.tileSize = 0;
  settings.stackSize = 0;
  settings.smallCell =
      0;  // a monopole costs one body's interaction: no cell is cheaper as its bodies
  return settings;
}

GroupRange estimateGroupsOf(GroupRange range, std::size_t bodyCount, const TreeSettings& settings) {
  range = clipped(range, groupCountOf(bodyCount, settings));
  const std::size_t coarse = std::size_t(estimateSettings(settings).groupSize / settings.groupSize);
  return {range.first / coarse, ceilDiv(range.last, coarse)};
}

std::size_t groupCountOf(std::size_t bodyCount, const TreeSettings& settings) {
  return ceilDiv(bodyCount, std::size_t(settings.groupSize));
}

GroupRange clipped(GroupRange range, std::size_t groups) {
  range.last = std::min(range.last, groups);
  if (range.first > range.last)
    throw std::invalid_argument("the walk's groups start at " + std::to_string(range.first) +
                                ", past their end at " + std::to_string(range.last) + " (" +
                                std::to_string(groups) + " groups)");
  return range;
}

bool WalkStage::usesSubgroups(const gl::Limits& limits, const TreeSettings& s) {
  switch (s.prefixSums) {
    case TreeSettings::PrefixSums::sharedMemory:
      return false;
    case TreeSettings::PrefixSums::subgroups:
      return true;
    case TreeSettings::PrefixSums::automatic:
      break;
  }
  return limits.computeSubgroupSize > 0 && walkThreadsOf(s) % limits.computeSubgroupSize == 0;
}

std::size_t WalkStage::sharedBytes(const gl::Limits& limits, const TreeSettings& s) {
  return declaredSharedBytes(s, true, usesSubgroups(limits, s) ? limits.computeSubgroupSize : 0);
}

void WalkStage::checkFits(const gl::Limits& limits, const TreeSettings& settings) {
  const int threads = walkThreadsOf(settings);
  if (settings.prefixSums == TreeSettings::PrefixSums::subgroups &&
      (limits.computeSubgroupSize == 0 || threads % limits.computeSubgroupSize != 0))
    throw std::runtime_error(
        limits.computeSubgroupSize == 0
            ? std::string("this GPU offers no subgroup arithmetic in compute shaders")
            : "subgroups of " + std::to_string(limits.computeSubgroupSize) +
                  " do not tile a walk of " + std::to_string(threads) + " invocations");
  const std::size_t bytes = sharedBytes(limits, settings);
  if (bytes > std::size_t(limits.maxComputeSharedMemoryBytes))
    throw std::runtime_error("the walk with groups of " + std::to_string(settings.groupSize) +
                             " and a stack of " + std::to_string(stackOf(settings)) + " needs " +
                             std::to_string(bytes) + " bytes of shared memory; this GPU offers " +
                             std::to_string(limits.maxComputeSharedMemoryBytes) +
                             ": choose a smaller stack or group");
}

gl::UniformProgram& WalkStage::program(Kernels& kernels, const TreeSettings& s,
                                       const StepParams& params, WalkOutput output,
                                       const SlotMap& slots, bool ordered) const {
  const bool subgroups = usesSubgroups(kernels.limits(), s);
  gl::Defines defines(
      {{"WORKGROUP_SIZE", walkThreadsOf(s)},
       {"GROUP_SIZE", s.groupSize},
       {"BODIES_PER_THREAD", s.bodiesPerThread},
       {"TILE", tileOf(s)},
       {"STACK_SIZE", stackOf(s)},
       {"SPILL_ROWS", spillRowsOf(s)},
       {"SPILL_SLOT_NODES", int(kSpillSlotNodes)},
       {"SUBGROUP_SCAN", subgroups ? 1 : 0},
       {"SUBGROUP_SIZE", subgroups ? kernels.limits().computeSubgroupSize : 0},
       {"EXPANSION_ORDER", s.expansionOrder},
       {"SOFTENED", softened(params) ? 1 : 0},
       {"POTENTIAL_COMPONENTS",
        output == WalkOutput::accelerations ? potentialComponents(params) : 0},
       {"POTENTIAL", output == WalkOutput::potential        ? 1
                     : output == WalkOutput::bodyPotentials ? 2
                                                            : 0},
       {"COUNT_ONLY", output == WalkOutput::countOnly ? 1 : 0},
       {"OPENING", opensRelative(s) ? 1 : 0},
       {"ESTIMATE", output == WalkOutput::estimates ? 1 : 0},
       {"CONTACTS", output == WalkOutput::accelerations ? contactScreening(params) : 0},
       // gravity.glsl's addBody is unused here; its contact counts are per body
       {"BODIES", s.bodiesPerThread},
       {"GROUP_ORDER", ordered ? 1 : 0},
       {"B_GROUP_ORDER", int(kGroupOrderBinding)}});
  return kernels.program(Kernel::walk, defines.add(slotDefines(slots)));
}

void WalkStage::run(Kernels& kernels, const TreeBuffers& buffers, std::size_t bodyCount,
                    glm::ivec2 size, const StepParams& params, const TreeSettings& s,
                    WalkOutput output, GroupRange range, const WalkParts& parts,
                    const SlotMap& slots) {
  range = clipped(range, groupCountOf(bodyCount, s));
  gl::UniformProgram& walk = program(kernels, s, params, output, slots, parts.order != 0);
  glUseProgram(walk.id());
  walk.setUint("uBodyCount", bodyCount);
  walk.setUint("uGroupEnd", range.last);
  walk.setUint("uLeafSize", std::size_t(s.leafSize));
  walk.setUint("uSmallCell", std::size_t(s.smallCell));
  walk.setUint("uSpillSlots", buffers.spillSlots());
  walk.setFloat("uGravity", params.gravity);
  const double scale = output == WalkOutput::estimates ? s.theta / s.estimateTheta : 1.0;
  walk.setFloat("uOpeningScale2", scale * scale);
  walk.setFloat("uTheta2", s.theta * s.theta);
  walk.setFloat("uAccuracy", s.accuracy);
  walk.setFloat("uSoftening2", params.softening * params.softening);
  setPotentialUniforms(walk, params);
  setContactUniforms(walk, params);
  // A node's extent about c_hi per unit of its opening radius (shaders/tree_walk.comp, CONTACTS).
  walk.setFloat("uContactExtent", std::max(1.0, s.theta * std::sqrt(3.0) / 2.0) * 1.001);
  walk.setInt("uTextureWidth", size.x);
  setSlotUniforms(walk, slots, bodyCount);
  const std::size_t partGroups = partGroupsFor(parts);
  for (std::size_t first = range.first; first < range.last; first += partGroups) {
    if (first > range.first && !parts.afterPart) glFinish();  // see kPartGroups
    glUseProgram(walk.id());                                  // afterPart may have used another
    if (parts.order != 0)
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kGroupOrderBinding, parts.order);
    walk.setUint("uGroupOffset", first);
    const std::size_t groups = std::min(partGroups, range.last - first);
    kernels.dispatch(groups);
    if (parts.afterPart) parts.afterPart({first, first + groups});
  }
  last_ = range;
  lastBodies_ = bodyCount;
  lastGroupSize_ = std::size_t(s.groupSize);
}

std::vector<std::uint32_t> heavyFirstOrder(GroupRange range, std::size_t partGroups,
                                           const std::function<double(std::size_t)>& weight) {
  std::vector<std::uint32_t> order(range.last);
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  std::vector<double> weights;
  for (std::size_t first = range.first; first < range.last; first += partGroups) {
    const std::size_t end = std::min(first + partGroups, range.last);
    weights.clear();
    for (std::size_t g = first; g < end; ++g) weights.push_back(weight(g));
    const double mean =
        std::accumulate(weights.begin(), weights.end(), 0.0) / double(weights.size());
    const auto heavier = [&](std::uint32_t a, std::uint32_t b) {
      const double wa = weights[a - first], wb = weights[b - first];
      return wa != wb ? wa > wb : a < b;
    };
    const auto heavy = [&](std::uint32_t g) { return weights[g - first] > 4.0 * mean; };
    const auto light = std::stable_partition(order.begin() + std::ptrdiff_t(first),
                                             order.begin() + std::ptrdiff_t(end), heavy);
    std::sort(order.begin() + std::ptrdiff_t(first), light, heavier);
  }
  return order;
}

std::vector<std::uint32_t> WalkStage::readCounters(const TreeBuffers& buffers) const {
  std::vector<std::uint32_t> counters((last_.last - last_.first) * 4);
  buffers.readBuffer(kGroupStats, last_.first * 16, counters.size() * 4, counters.data());
  return counters;
}

ListStatistics WalkStage::listStatistics(const TreeBuffers& buffers) const {
  ListStatistics statistics;
  statistics.groups = last_.last - last_.first;
  if (statistics.groups == 0) return statistics;
  const std::vector<std::uint32_t> counters = readCounters(buffers);
  double bodies = 0, bodyInteractions = 0, cellInteractions = 0, tested = 0;
  for (std::size_t k = 0; k < statistics.groups; ++k) {
    const std::size_t g = last_.first + k;
    const double members = double(std::min(lastGroupSize_, lastBodies_ - g * lastGroupSize_));
    statistics.stackOverflows += counters[4 * k + 3] & 0xffffu;
    statistics.stackRowsSpilled += counters[4 * k + 3] >> 16;
    bodyInteractions += double(counters[4 * k]) * members;
    cellInteractions += double(counters[4 * k + 1]) * members;
    statistics.interactions +=
        (std::uint64_t(counters[4 * k]) + counters[4 * k + 1]) * std::uint64_t(members);
    tested += counters[4 * k + 2];
    bodies += members;
    statistics.mostBodyInteractions =
        std::max<std::size_t>(statistics.mostBodyInteractions, counters[4 * k]);
  }
  statistics.bodyInteractionsPerBody = bodyInteractions / bodies;
  statistics.cellInteractionsPerBody = cellInteractions / bodies;
  statistics.nodesTestedPerGroup = tested / double(statistics.groups);
  return statistics;
}

std::vector<GroupCounts> WalkStage::groupCounts(const TreeBuffers& buffers) const {
  const std::vector<std::uint32_t> counters = readCounters(buffers);
  std::vector<GroupCounts> counts;
  for (std::size_t k = 0; k < counters.size(); k += 4)
    counts.push_back({counters[k], counters[k + 1], counters[k + 2]});
  return counts;
}

double WalkStage::sumPotentials(const TreeBuffers& buffers, std::size_t groups) const {
  std::vector<double> terms(groups);
  buffers.readBuffer(kPotential, 0, groups * sizeof(double), terms.data());
  ExactSum sum;
  for (const double term : terms) sum.add(term);
  return sum.value();
}

bool RingTuner::needsTuning(std::size_t bodyCount, const TreeSettings& settings) const {
  return settings.stackSize == 0 && bodyCount > tunedAbove_ && !tuned(bodyCount, settings);
}

std::optional<int> RingTuner::tuned(std::size_t bodyCount, const TreeSettings& settings) const {
  const auto found = tuned_.find({bodyCount, describe(settings)});
  if (found == tuned_.end()) return std::nullopt;
  return found->second;
}

TreeSettings RingTuner::resolve(std::size_t bodyCount, TreeSettings settings) const {
  if (settings.stackSize != 0) return settings;
  const std::optional<int> found =
      bodyCount > tunedAbove_ ? tuned(bodyCount, settings) : std::nullopt;
  settings.stackSize = found ? *found : stackOf(settings);
  return settings;
}

std::array<int, 2> RingTuner::candidates(const gl::Limits& limits, TreeSettings settings) {
  const int least = stackOf(settings);
  for (settings.stackSize = 4096; settings.stackSize > least; settings.stackSize /= 2)
    if (WalkStage::sharedBytes(limits, settings) <= std::size_t(limits.maxComputeSharedMemoryBytes))
      return {least, settings.stackSize};
  return {least, least};
}

void RingTuner::evaluate(std::size_t bodyCount, const TreeSettings& settings,
                         const gl::Limits& limits, const Trial& compile,
                         const Evaluation& evaluate) {
  if (!needsTuning(bodyCount, settings)) {
    evaluate(resolve(bodyCount, settings), false);
    return;
  }
  tune(bodyCount, settings, limits, compile,
       [&](const TreeSettings& trial) { evaluate(trial, true); });
}

void RingTuner::tune(std::size_t bodyCount, const TreeSettings& settings, const gl::Limits& limits,
                     const Trial& compile, const Trial& evaluate) {
  const std::array<int, 2> rings = candidates(limits, settings);
  TreeSettings trial = settings;
  for (const int ring : rings) {  // compiled before any is timed, as is the first evaluation
    trial.stackSize = ring;
    compile(trial);
  }
  evaluate(trial);
  double fastest = std::numeric_limits<double>::infinity();
  int best = rings[0];
  for (const int ring : rings) {
    trial.stackSize = ring;
    glFinish();
    const auto start = std::chrono::steady_clock::now();
    evaluate(trial);
    glFinish();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds < fastest) fastest = seconds, best = ring;
  }
  tuned_[{bodyCount, describe(settings)}] = best;
}

}  // namespace nbody::tree
