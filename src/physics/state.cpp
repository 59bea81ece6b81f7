#include "physics/state.h"

namespace nbody {

void State::resize(std::size_t bodyCount) {
  positionMass.resize(bodyCount);
  velocity.resize(bodyCount);
}

double totalMass(const State& state) {
  double mass = 0.0;
  for (const glm::vec4& p : state.positionMass) mass += p.w;
  return mass;
}

glm::dvec3 totalMomentum(const State& state) {
  glm::dvec3 momentum(0.0);
  for (std::size_t i = 0; i < state.size(); ++i)
    momentum += double(state.positionMass[i].w) * glm::dvec3(state.velocity[i]);
  return momentum;
}

glm::dvec3 centreOfMass(const State& state) {
  glm::dvec3 weighted(0.0);
  for (const glm::vec4& p : state.positionMass) weighted += double(p.w) * glm::dvec3(p);
  return weighted / totalMass(state);
}

}  // namespace nbody
