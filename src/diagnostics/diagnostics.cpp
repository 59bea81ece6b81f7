#include "diagnostics/diagnostics.h"

#include <cmath>
#include <glm/geometric.hpp>

namespace nbody {
namespace {

// -G sum_{i < j} m_i m_j / sqrt(r_ij^2 + eps^2): each pair once, which is the -1/2 double sum.
double potentialEnergy(const DoubleBodies& bodies, const StepParams& params) {
  const double softening2 = params.softening * params.softening;
  const std::size_t n = bodies.mass.size();
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    double sumOverPartners = 0.0;
    for (std::size_t j = i + 1; j < n; ++j) {
      const glm::dvec3 d = bodies.position[j] - bodies.position[i];
      const double r2 = glm::dot(d, d) + softening2;
      if (r2 > 0.0) sumOverPartners += bodies.mass[j] / std::sqrt(r2);
    }
    sum += bodies.mass[i] * sumOverPartners;
  }
  return -params.gravity * sum;
}

}  // namespace

Diagnostics computeDiagnostics(const DoubleBodies& bodies, const StepParams& params) {
  Diagnostics d;
  glm::dvec3 weightedPosition(0.0);
  for (std::size_t i = 0; i < bodies.mass.size(); ++i) {
    const double m = bodies.mass[i];
    const glm::dvec3 r = bodies.position[i], v = bodies.velocity[i];
    d.mass += m;
    d.kinetic += 0.5 * m * glm::dot(v, v);
    d.momentum += m * v;
    d.angularMomentum += m * glm::cross(r, v);
    weightedPosition += m * r;
  }
  d.centreOfMass = d.mass > 0.0 ? weightedPosition / d.mass : glm::dvec3(0.0);
  d.potential = potentialEnergy(bodies, params);
  d.external = externalEnergy(bodies, params);
  return d;
}

double externalEnergy(const DoubleBodies& bodies, const StepParams& params) {
  if (!params.potential) return 0.0;
  const double time = params.time();
  double sum = 0.0;
  for (std::size_t i = 0; i < bodies.mass.size(); ++i)
    if (bodies.mass[i] != 0.0)
      sum += bodies.mass[i] * params.potential->potential(bodies.position[i], time, params.gravity);
  return sum;
}

double externalEnergy(const State& state, const StepParams& params) {
  if (!params.potential) return 0.0;
  const double time = params.time();
  double sum = 0.0;
  for (const glm::vec4& body : state.positionMass)
    if (body.w != 0.0f)
      sum += double(body.w) *
             params.potential->potential(glm::dvec3(glm::vec3(body)), time, params.gravity);
  return sum;
}

Diagnostics computeDiagnostics(const State& state, const StepParams& params) {
  std::vector<double> mass(state.size());
  std::vector<glm::dvec3> position(state.size()), velocity(state.size());
  for (std::size_t i = 0; i < state.size(); ++i) {
    mass[i] = state.positionMass[i].w;
    position[i] = glm::dvec3(state.positionMass[i]);
    velocity[i] = glm::dvec3(state.velocity[i]);
  }
  return computeDiagnostics(DoubleBodies{mass, position, velocity}, params);
}

double relativeEnergyError(const Diagnostics& start, const Diagnostics& now) {
  return (now.total() - start.total()) / std::abs(start.total());
}

double momentumDrift(const Diagnostics& start, const Diagnostics& now) {
  return glm::length(now.momentum - start.momentum);
}

double angularMomentumDrift(const Diagnostics& start, const Diagnostics& now) {
  return glm::length(now.angularMomentum - start.angularMomentum);
}

}  // namespace nbody
