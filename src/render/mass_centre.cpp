#include "render/mass_centre.h"

#include <array>
#include <vector>

#include "util/exact_sum.h"

namespace nbody {
namespace {

// The sums of a weighted pass: mass, m r (3), m v (3).
enum WeightedSum : std::size_t {
  kMass,
  kMassPosition,
  kMomentum = kMassPosition + 3,
  kWeighted = 7
};

std::array<ExactSum, kWeighted> weightedSums(const State& part) {
  std::array<ExactSum, kWeighted> sums;
  for (std::size_t i = 0; i < part.size(); ++i) {
    const double m = part.positionMass[i].w;
    sums[kMass].add(m);
    for (std::size_t k = 0; k < 3; ++k) {
      // Exact: a product of two floats fits a double.
      sums[kMassPosition + k].add(m * double(part.positionMass[i][int(k)]));
      sums[kMomentum + k].add(m * double(part.velocity[i][int(k)]));
    }
  }
  return sums;
}

std::array<ExactSum, 3> positionSums(const State& part) {
  std::array<ExactSum, 3> sums;
  for (const glm::vec4& p : part.positionMass)
    for (std::size_t k = 0; k < 3; ++k) sums[k].add(p[int(k)]);
  return sums;
}

// Every rank's sums added, as integers: each the exact sum over every part.
template <std::size_t kCount>
std::array<ExactSum, kCount> overAllParts(const std::array<ExactSum, kCount>& own,
                                          const Ranks& ranks) {
  constexpr std::size_t kParts = std::tuple_size_v<ExactSum::Parts>;
  std::vector<std::int64_t> parts(kCount * kParts);
  for (std::size_t s = 0; s < kCount; ++s) {
    const ExactSum::Parts one = own[s].parts();
    std::copy(one.begin(), one.end(), parts.begin() + std::ptrdiff_t(s * kParts));
  }
  ranks.sum(parts);
  std::array<ExactSum, kCount> all;
  for (std::size_t s = 0; s < kCount; ++s) {
    ExactSum::Parts one;
    std::copy_n(parts.begin() + std::ptrdiff_t(s * kParts), kParts, one.begin());
    all[s] = ExactSum::fromParts(one);
  }
  return all;
}

}  // namespace

MassCentre massCentreOf(const State& part, const Ranks& ranks) {
  const std::array<ExactSum, kWeighted> sums = overAllParts(weightedSums(part), ranks);
  MassCentre centre;
  centre.bodies = ranks.sum(std::int64_t(part.size()));
  centre.mass = sums[kMass].value();
  if (centre.mass > 0.0) {
    for (std::size_t k = 0; k < 3; ++k) {
      centre.position[int(k)] = sums[kMassPosition + k].value() / centre.mass;
      centre.velocity[int(k)] = sums[kMomentum + k].value() / centre.mass;
    }
  } else if (centre.bodies > 0) {  // every rank alike: the mass is every part's
    const std::array<ExactSum, 3> positions = overAllParts(positionSums(part), ranks);
    for (std::size_t k = 0; k < 3; ++k)
      centre.meanPosition[int(k)] = positions[k].value() / double(centre.bodies);
  }
  return centre;
}

}  // namespace nbody
