#include "render/mass_centre.h"

#include <algorithm>
#include <array>
#include <system_error>
#include <thread>
#include <vector>

#include "util/exact_sum.h"
#include "util/parallel_for.h"

namespace nbody {
namespace {

// The sums of a weighted pass: mass, m r (3), m v (3).
enum WeightedSum : std::size_t {
  kMass,
  kMassPosition,
  kMomentum = kMassPosition + 3,
  kWeighted = 7
};

using WeightedSums = std::array<ExactSum, kWeighted>;

void addWeighted(const State& part, std::size_t begin, std::size_t end, WeightedSums& sums) {
  for (std::size_t i = begin; i < end; ++i) {
    const double m = part.positionMass[i].w;
    sums[kMass].add(m);
    for (std::size_t k = 0; k < 3; ++k) {
      // Exact: a product of two floats fits a double.
      sums[kMassPosition + k].add(m * double(part.positionMass[i][int(k)]));
      sums[kMomentum + k].add(m * double(part.velocity[i][int(k)]));
    }
  }
}

// Split over the CPU's threads: exact sums merged give the bits of one pass (7 adds a body, ~25 ns
// on one thread: 0.4 s at 16.8M bodies, where the window refits its colours on a click). Where a
// thread cannot start (a process limit), one pass on this thread.
WeightedSums weightedSums(const State& part) {
  constexpr std::size_t kBodiesPerThread = std::size_t(1) << 16;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<WeightedSums> ranges(parallelRanges(part.size(), threads, kBodiesPerThread));
  try {
    parallelForRanges(part.size(), threads, kBodiesPerThread,
                      [&](std::size_t range, std::size_t begin, std::size_t end) {
                        addWeighted(part, begin, end, ranges[range]);
                      });
  } catch (const std::system_error&) {
    ranges.assign(1, WeightedSums{});
    addWeighted(part, 0, part.size(), ranges.front());
  }
  WeightedSums sums = ranges.front();
  for (std::size_t r = 1; r < ranges.size(); ++r)
    for (std::size_t k = 0; k < kWeighted; ++k) sums[k].merge(ranges[r][k]);
  return sums;
}

std::array<ExactSum, 3> positionSums(const State& part) {
  std::array<ExactSum, 3> sums;
  for (const glm::vec4& p : part.positionMass)
    for (std::size_t k = 0; k < 3; ++k) sums[k].add(p[int(k)]);
  return sums;
}

}  // namespace

MassCentre massCentreOf(const State& part, const Ranks& ranks) {
  WeightedSums sums = weightedSums(part);
  exactSumsOnEveryRank(ranks, sums);
  MassCentre centre;
  centre.bodies = ranks.sum(std::int64_t(part.size()));
  centre.mass = sums[kMass].value();
  if (centre.mass > 0.0) {
    for (std::size_t k = 0; k < 3; ++k) {
      centre.position[int(k)] = sums[kMassPosition + k].value() / centre.mass;
      centre.velocity[int(k)] = sums[kMomentum + k].value() / centre.mass;
    }
  } else if (centre.bodies > 0) {  // every rank alike: the mass is every part's
    std::array<ExactSum, 3> positions = positionSums(part);
    exactSumsOnEveryRank(ranks, positions);
    for (std::size_t k = 0; k < 3; ++k)
      centre.meanPosition[int(k)] = positions[k].value() / double(centre.bodies);
  }
  return centre;
}

}  // namespace nbody
