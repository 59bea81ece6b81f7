#include "render/mass_centre.h"

#include <array>

#include "util/exact_sum.h"

namespace nbody {
namespace {

std::array<ExactSum, 3> positionSums(const State& part) {
  std::array<ExactSum, 3> sums;
  for (const glm::vec4& p : part.positionMass)
    for (std::size_t k = 0; k < 3; ++k) sums[k].add(p[int(k)]);
  return sums;
}

}  // namespace

MassCentre massCentreOf(const State& part, const Ranks& ranks) {
  MassSums sums = massSumsOf(part);
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
