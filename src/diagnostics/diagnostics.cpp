#include "diagnostics/diagnostics.h"

#include <cmath>

#include <glm/geometric.hpp>

namespace nbody {
namespace {

// -G sum_{i < j} m_i m_j / sqrt(r_ij^2 + eps^2): each pair once, which is the -1/2 double sum.
double potentialEnergy(const State& state, const StepParams& params) {
  const double softening2 = params.softening * params.softening;
  double sum = 0.0;
  for (std::size_t i = 0; i < state.size(); ++i) {
    const glm::dvec3 ri(state.positionMass[i]);
    double sumOverPartners = 0.0;
    for (std::size_t j = i + 1; j < state.size(); ++j) {
      const glm::dvec3 d = glm::dvec3(state.positionMass[j]) - ri;
      const double r2 = glm::dot(d, d) + softening2;
      if (r2 > 0.0) sumOverPartners += double(state.positionMass[j].w) / std::sqrt(r2);
    }
    sum += double(state.positionMass[i].w) * sumOverPartners;
  }
  return -params.gravity * sum;
}

}  // namespace

Diagnostics computeDiagnostics(const State& state, const StepParams& params) {
  Diagnostics d;
  d.mass = totalMass(state);
  d.momentum = totalMomentum(state);
  d.centreOfMass = d.mass > 0.0 ? centreOfMass(state) : glm::dvec3(0.0);
  for (std::size_t i = 0; i < state.size(); ++i) {
    const double m = state.positionMass[i].w;
    const glm::dvec3 r(state.positionMass[i]), v(state.velocity[i]);
    d.kinetic += 0.5 * m * glm::dot(v, v);
    d.angularMomentum += m * glm::cross(r, v);
  }
  d.potential = potentialEnergy(state, params);
  return d;
}

double relativeEnergyError(const Diagnostics& start, const Diagnostics& now) {
  return (now.total() - start.total()) / std::abs(start.total());
}

}  // namespace nbody
