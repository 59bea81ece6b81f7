#pragma once
// Helpers shared by the test suites: independent references (the Kepler problem's exact solution)
// and comparisons of whole states.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <numbers>
#include <utility>

#include <glm/geometric.hpp>

#include "diagnostics/diagnostics.h"
#include "engines/engine.h"
#include "physics/method.h"
#include "physics/scenes.h"
#include "render/camera.h"

namespace nbody::test {

// A camera looking along -Z at the origin from `distance` (yaw 0, pitch 0): the picture's x and y
// are the scene's.
inline Camera frontCamera(float distance) {
  Camera camera;
  camera.yawDegrees = 0.0f, camera.pitchDegrees = 0.0f;
  camera.distance = distance;
  return camera;
}

struct StateDifference {
  double maxPosition = 0, maxVelocity = 0;  // largest |difference| over all bodies
  std::size_t worstPositionBody = 0, worstVelocityBody = 0;
};

inline StateDifference compareStates(const State& a, const State& b) {
  StateDifference d;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double dp = glm::length(glm::dvec3(a.positionMass[i]) - glm::dvec3(b.positionMass[i]));
    const double dv = glm::length(glm::dvec3(a.velocity[i]) - glm::dvec3(b.velocity[i]));
    if (!(dp <= d.maxPosition)) d.maxPosition = dp, d.worstPositionBody = i;  // NaN wins too
    if (!(dv <= d.maxVelocity)) d.maxVelocity = dv, d.worstVelocityBody = i;
  }
  return d;
}

// The same bodies, in the same order, with the same IDs and components.
inline bool sameIdentity(const State& a, const State& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (bodyId(a, i) != bodyId(b, i) || componentOf(a, i) != componentOf(b, i)) return false;
  return true;
}

// The states hold the same bits (== on floats would let -0 pass for +0), and the same bodies.
inline bool sameBits(const State& a, const State& b) {
  return a.size() == b.size() &&
         std::memcmp(a.positionMass.data(), b.positionMass.data(), a.size() * sizeof(glm::vec4)) ==
             0 &&
         std::memcmp(a.velocity.data(), b.velocity.data(), a.size() * sizeof(glm::vec4)) == 0 &&
         sameIdentity(a, b);
}

// Every field of the diagnostics holds the same bits.
inline bool sameBits(const Diagnostics& a, const Diagnostics& b) {
  const auto same = [](const auto& x, const auto& y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  return same(a.mass, b.mass) && same(a.kinetic, b.kinetic) && same(a.potential, b.potential) &&
         same(a.external, b.external) && same(a.momentum, b.momentum) &&
         same(a.angularMomentum, b.angularMomentum) && same(a.centreOfMass, b.centreOfMass);
}

// The same bodies in an order drawn from `seed` (a Fisher-Yates shuffle).
inline State shuffledBodies(const State& state, unsigned seed) {
  State shuffled = state;
  std::uint64_t random = seed * 0x9e3779b97f4a7c15ull + 1;
  for (std::size_t i = shuffled.size(); i-- > 1;) {
    random = random * 6364136223846793005ull + 1442695040888963407ull;  // Knuth's MMIX LCG
    const std::size_t j = std::size_t(random >> 33) % (i + 1);
    std::swap(shuffled.positionMass[i], shuffled.positionMass[j]);
    std::swap(shuffled.velocity[i], shuffled.velocity[j]);
  }
  return shuffled;
}

inline State advance(Engine& engine, const State& initial, const Method& method,
                     const StepParams& params, int steps) {
  engine.upload(initial);
  engine.step(method, params, steps);
  return engine.download();
}

constexpr double kKeplerPeriod = 2.0 * std::numbers::pi;  // a = 1, G (m1 + m2) = 1

// Relative error of the relative orbit (separation and relative velocity) of a two-body state.
inline double relativeOrbitError(const State& state, glm::dvec3 separation, glm::dvec3 velocity) {
  const glm::dvec3 s = glm::dvec3(state.positionMass[1]) - glm::dvec3(state.positionMass[0]);
  const glm::dvec3 v = glm::dvec3(state.velocity[1]) - glm::dvec3(state.velocity[0]);
  return std::max(glm::length(s - separation) / glm::length(separation),
                  glm::length(v - velocity) / glm::length(velocity));
}

inline double relativeOrbitError(const State& state, const State& reference) {
  return relativeOrbitError(
      state, glm::dvec3(reference.positionMass[1]) - glm::dvec3(reference.positionMass[0]),
      glm::dvec3(reference.velocity[1]) - glm::dvec3(reference.velocity[0]));
}

// Half a Kepler orbit (pericentre to apocentre) in `steps` steps, softening 0.
inline State keplerHalfOrbit(Engine& engine, const Method& method, double eccentricity, int steps) {
  StepParams params;
  params.softening = 0.0;
  params.dt = 0.5 * kKeplerPeriod / steps;
  return advance(engine, keplerPair(eccentricity), method, params, steps);
}

// Measured order of convergence: log2 of the error ratio when the step is halved, the errors
// taken against a much finer run (`reference`) from the same float32 start.
inline double measuredOrder(Engine& engine, const Method& method, double eccentricity, int steps,
                            const State& reference) {
  const double coarse =
      relativeOrbitError(keplerHalfOrbit(engine, method, eccentricity, steps), reference);
  const double fine =
      relativeOrbitError(keplerHalfOrbit(engine, method, eccentricity, 2 * steps), reference);
  return std::log2(coarse / fine);
}

}  // namespace nbody::test
