#pragma once
// Where a picture is centred, from bodies held in parts by the ranks (each rank its part, or one
// process all of them with processAlone()): the total mass, the centre of mass and its velocity
// from exact sums of m, m r and m v over every part (util/exact_sum.h), each rounded once. So one
// process and any number of ranks holding parts find the same bits (docs/pictures.md).

#include <cstdint>

#include <glm/vec3.hpp>

#include "parallel/ranks.h"
#include "physics/state.h"

namespace nbody {

struct MassCentre {
  std::int64_t bodies = 0;  // of every part
  double mass = 0.0;
  glm::dvec3 position{0.0}, velocity{0.0};  // the origin and rest where mass is not above 0
  glm::dvec3 meanPosition{0.0};             // of the bodies, unweighted: where mass is not above 0
};

// Every rank calls it alike.
MassCentre massCentreOf(const State& part, const Ranks& ranks);

}  // namespace nbody
