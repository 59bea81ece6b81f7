#include "render/mass_centre.h"

#include <array>
#include <vector>

#include "util/exact_sum.h"

namespace nbody {
namespace {

// The sums: mass, m r (3), m v (3), r (3).
enum Sum : std::size_t {
  kMass,
  kMassPosition,
  kMomentum = kMassPosition + 3,
  kPosition = 7,
  kSums = 10
};

std::array<ExactSum, kSums> partSums(const State& part) {
  std::array<ExactSum, kSums> sums;
  for (std::size_t i = 0; i < part.size(); ++i) {
    const double m = part.positionMass[i].w;
    sums[kMass].add(m);
    for (std::size_t k = 0; k < 3; ++k) {
      const double r = part.positionMass[i][int(k)], v = part.velocity[i][int(k)];
      sums[kMassPosition + k].add(m * r);  // exact: a product of two floats fits a double
      sums[kMomentum + k].add(m * v);
      sums[kPosition + k].add(r);
    }
  }
  return sums;
}

// Every rank's sums added, as integers.
std::array<ExactSum, kSums> sumsOfAllParts(const std::array<ExactSum, kSums>& own,
                                           const Ranks& ranks) {
  constexpr std::size_t kParts = std::tuple_size_v<ExactSum::Parts>;
  std::vector<std::int64_t> parts(kSums * kParts);
  for (std::size_t s = 0; s < kSums; ++s) {
    const ExactSum::Parts one = own[s].parts();
    std::copy(one.begin(), one.end(), parts.begin() + std::ptrdiff_t(s * kParts));
  }
  ranks.sum(parts);
  std::array<ExactSum, kSums> all;
  for (std::size_t s = 0; s < kSums; ++s) {
    ExactSum::Parts one;
    std::copy_n(parts.begin() + std::ptrdiff_t(s * kParts), kParts, one.begin());
    all[s] = ExactSum::fromParts(one);
  }
  return all;
}

}  // namespace

MassCentre massCentreOf(const State& part, const Ranks& ranks) {
  const std::array<ExactSum, kSums> sums = sumsOfAllParts(partSums(part), ranks);
  MassCentre centre;
  centre.bodies = ranks.sum(std::int64_t(part.size()));
  centre.mass = sums[kMass].value();
  for (std::size_t k = 0; k < 3; ++k) {
    if (centre.bodies > 0)
      centre.meanPosition[int(k)] = sums[kPosition + k].value() / double(centre.bodies);
    if (!(centre.mass > 0.0)) continue;
    centre.position[int(k)] = sums[kMassPosition + k].value() / centre.mass;
    centre.velocity[int(k)] = sums[kMomentum + k].value() / centre.mass;
  }
  return centre;
}

}  // namespace nbody
