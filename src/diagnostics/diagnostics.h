#pragma once
// What physics conserves, measured on a state: energy, momentum, angular momentum and the centre
// of mass. The CPU computes them here in double precision; GpuDiagnostics (gpu_diagnostics.h)
// reduces the same quantities on the GPU where an engine keeps its state.

#include <glm/vec3.hpp>

#include "physics/state.h"

namespace nbody {

struct Diagnostics {
  double mass = 0.0;       // M = sum m
  double kinetic = 0.0;    // T = 1/2 sum m v^2
  double potential = 0.0;  // W = -1/2 sum_i sum_{j != i} G m_i m_j / sqrt(r_ij^2 + eps^2)
  double external = 0.0;   // X = sum m Phi_ext(r) in an external potential, at its time; 0 without
  glm::dvec3 momentum{0.0};         // P = sum m v
  glm::dvec3 angularMomentum{0.0};  // L = sum m r x v, about the origin
  glm::dvec3 centreOfMass{0.0};     // sum m r / M

  double total() const { return kinetic + potential + external; }
  double virialRatio() const { return 2.0 * kinetic / -potential; }  // 1 in virial equilibrium
};

// The pair convention of the force law (shaders/gravity.glsl): a pair at distance 0 with eps = 0
// adds zero instead of infinity. Uses params.softening and params.gravity; dt plays no part.
// O(N^2), in double precision.
Diagnostics computeDiagnostics(const DoubleBodies& bodies, const StepParams& params);
// The same from the float32 state every engine exchanges.
Diagnostics computeDiagnostics(const State& state, const StepParams& params);
// X alone: sum m Phi_ext(r) at params.time(), summed exactly; 0 without a potential. O(N).
double externalEnergy(const DoubleBodies& bodies, const StepParams& params);
double externalEnergy(const State& state, const StepParams& params);

// (E - E0) / |E0|: how far the total energy has drifted from where it started. Ill-conditioned
// for states whose energy is near zero (the expand scene).
double relativeEnergyError(const Diagnostics& start, const Diagnostics& now);
// |P - P0| and |L - L0|: how far the total momentum and angular momentum have drifted.
double momentumDrift(const Diagnostics& start, const Diagnostics& now);
double angularMomentumDrift(const Diagnostics& start, const Diagnostics& now);

}  // namespace nbody
