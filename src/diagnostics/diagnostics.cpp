#include "diagnostics/diagnostics.h"

#include <cmath>
#include <glm/geometric.hpp>

#include "util/exact_sum.h"

namespace nbody {
namespace {

// Exact sums of a vector's components.
struct ExactVector {
  ExactSum x, y, z;
  void add(const glm::dvec3& v) {
    x.add(v.x);
    y.add(v.y);
    z.add(v.z);
  }
  glm::dvec3 value() const { return {x.value(), y.value(), z.value()}; }
};

// -G sum_{i < j} m_i m_j / sqrt(r_ij^2 + eps^2): each pair once, which is the -1/2 double sum.
// Each body's partners are added in double in body order (an exact sum of every pair would make
// this O(N^2) loop several times slower); the bodies' sums are added exactly.
double potentialEnergy(const DoubleBodies& bodies, const StepParams& params) {
  const double softening2 = params.softening * params.softening;
  const std::size_t n = bodies.mass.size();
  ExactSum sum;
  for (std::size_t i = 0; i < n; ++i) {
    double sumOverPartners = 0.0;
    for (std::size_t j = i + 1; j < n; ++j) {
      const glm::dvec3 d = bodies.position[j] - bodies.position[i];
      const double r2 = glm::dot(d, d) + softening2;
      if (r2 > 0.0) sumOverPartners += bodies.mass[j] / std::sqrt(r2);
    }
    sum.add(bodies.mass[i] * sumOverPartners);
  }
  return -params.gravity * sum.value();
}

}  // namespace

// Every sum over bodies is exact (util/exact_sum.h): the diagnostics of a state but its potential
// do not depend on the order of its bodies, nor on how a distributed run splits them.
Diagnostics computeDiagnostics(const DoubleBodies& bodies, const StepParams& params) {
  ExactSum mass, kinetic;
  ExactVector momentum, angularMomentum, weightedPosition;
  for (std::size_t i = 0; i < bodies.mass.size(); ++i) {
    const double m = bodies.mass[i];
    const glm::dvec3 r = bodies.position[i], v = bodies.velocity[i];
    mass.add(m);
    kinetic.add(0.5 * m * glm::dot(v, v));
    momentum.add(m * v);
    angularMomentum.add(m * glm::cross(r, v));
    weightedPosition.add(m * r);
  }
  Diagnostics d;
  d.mass = mass.value();
  d.kinetic = kinetic.value();
  d.momentum = momentum.value();
  d.angularMomentum = angularMomentum.value();
  d.centreOfMass = d.mass > 0.0 ? weightedPosition.value() / d.mass : glm::dvec3(0.0);
  d.potential = potentialEnergy(bodies, params);
  d.external = externalEnergy(bodies, params);
  return d;
}

double externalEnergy(const DoubleBodies& bodies, const StepParams& params) {
  if (!params.potential) return 0.0;
  const double time = params.time();
  ExactSum sum;
  for (std::size_t i = 0; i < bodies.mass.size(); ++i)
    if (bodies.mass[i] != 0.0)
      sum.add(bodies.mass[i] *
              params.potential->potential(bodies.position[i], time, params.gravity));
  return sum.value();
}

double externalEnergy(const State& state, const StepParams& params) {
  if (!params.potential) return 0.0;
  const double time = params.time();
  ExactSum sum;
  for (const glm::vec4& body : state.positionMass)
    if (body.w != 0.0f)
      sum.add(double(body.w) *
              params.potential->potential(glm::dvec3(glm::vec3(body)), time, params.gravity));
  return sum.value();
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
