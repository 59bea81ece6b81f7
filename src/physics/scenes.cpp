#include "physics/scenes.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include <glm/geometric.hpp>

namespace nbody {
namespace {

// Uniform doubles in [0, 1) from a fixed generator and a fixed conversion, so that a seed gives
// the same scene with every compiler and standard library.
class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}
  double uniform() { return double(engine_() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  glm::dvec3 isotropic(double length) {
    const double cosTheta = uniform(-1.0, 1.0);
    const double sinTheta = std::sqrt(1.0 - cosTheta * cosTheta);
    const double phi = uniform(0.0, 2.0 * std::numbers::pi);
    return length * glm::dvec3(sinTheta * std::cos(phi), sinTheta * std::sin(phi), cosTheta);
  }

 private:
  std::mt19937_64 engine_;
};

State equalMasses(std::size_t bodyCount) {
  State state;
  state.resize(bodyCount);
  for (glm::vec4& p : state.positionMass) p.w = float(1.0 / double(bodyCount));
  return state;
}

// Aarseth, Henon & Wielen (1974), scaled to Henon units (G = M = 1, E = -1/4): the Plummer
// scale radius is then 3 pi / 16.
State plummer(std::size_t bodyCount, std::uint64_t seed) {
  Random random(seed);
  State state = equalMasses(bodyCount);
  const double lengthScale = 3.0 * std::numbers::pi / 16.0;
  const double velocityScale = 1.0 / std::sqrt(lengthScale);
  for (std::size_t i = 0; i < bodyCount; ++i) {
    double radius = 0.0;
    do {  // cut the far tail, which holds 0.1% of the mass, so the system stays compact
      const double massFraction = random.uniform(1e-10, 1.0);
      radius = 1.0 / std::sqrt(std::pow(massFraction, -2.0 / 3.0) - 1.0);
    } while (radius > 10.0);
    double q = 0.0;  // speed in units of the local escape speed, by von Neumann rejection
    do {
      q = random.uniform();
    } while (0.1 * random.uniform() >= q * q * std::pow(1.0 - q * q, 3.5));
    const double speed = q * std::sqrt(2.0) * std::pow(1.0 + radius * radius, -0.25);
    const glm::dvec3 r = random.isotropic(radius * lengthScale);
    const glm::dvec3 v = random.isotropic(speed * velocityScale);
    state.positionMass[i] = glm::vec4(glm::vec3(r), state.positionMass[i].w);
    state.velocity[i] = glm::vec4(glm::vec3(v), 0.0f);
  }
  return state;
}

// A uniform-density ball of radius 1 with isotropic random velocities scaled to virial
// equilibrium (2T = |W|, W = -3/5 G M^2 / R).
State uniformSphere(std::size_t bodyCount, std::uint64_t seed) {
  Random random(seed);
  State state = equalMasses(bodyCount);
  std::vector<glm::dvec3> velocities(bodyCount);
  double kinetic = 0.0;
  for (std::size_t i = 0; i < bodyCount; ++i) {
    const glm::dvec3 r = random.isotropic(std::cbrt(random.uniform()));
    velocities[i] = random.isotropic(std::cbrt(random.uniform()));
    kinetic += 0.5 * state.positionMass[i].w * glm::dot(velocities[i], velocities[i]);
    state.positionMass[i] = glm::vec4(glm::vec3(r), state.positionMass[i].w);
  }
  const double virialKinetic = 0.5 * 0.6;
  const double scale = kinetic > 0.0 ? std::sqrt(virialKinetic / kinetic) : 0.0;
  for (std::size_t i = 0; i < bodyCount; ++i)
    state.velocity[i] = glm::vec4(glm::vec3(scale * velocities[i]), 0.0f);
  return state;
}

State centred(State state) {
  moveToCentreOfMassFrame(state);
  return state;
}

}  // namespace

void moveToCentreOfMassFrame(State& state) {
  const double mass = totalMass(state);
  if (state.size() == 0 || mass <= 0.0) return;
  const glm::dvec3 centre = centreOfMass(state);
  const glm::dvec3 drift = totalMomentum(state) / mass;
  for (std::size_t i = 0; i < state.size(); ++i) {
    glm::vec4& p = state.positionMass[i];
    p = glm::vec4(glm::vec3(glm::dvec3(p) - centre), p.w);
    state.velocity[i] = glm::vec4(glm::vec3(glm::dvec3(state.velocity[i]) - drift), 0.0f);
  }
}

State keplerPair(double eccentricity, double m1, double m2, double gravity) {
  const double totalM = m1 + m2;
  const double separation = 1.0 - eccentricity;  // pericentre distance for a = 1
  const double relativeSpeed = std::sqrt(gravity * totalM * (1.0 + eccentricity) / separation);
  State state;
  state.resize(2);
  state.positionMass[0] = glm::vec4(float(-separation * m2 / totalM), 0.0f, 0.0f, float(m1));
  state.positionMass[1] = glm::vec4(float(separation * m1 / totalM), 0.0f, 0.0f, float(m2));
  state.velocity[0] = glm::vec4(0.0f, float(-relativeSpeed * m2 / totalM), 0.0f, 0.0f);
  state.velocity[1] = glm::vec4(0.0f, float(relativeSpeed * m1 / totalM), 0.0f, 0.0f);
  return state;
}

const std::vector<Scene>& allScenes() {
  static const std::vector<Scene> scenes{
      {"plummer", "Plummer sphere in Henon units (G = M = 1, E = -1/4)",
       [](std::size_t n, std::uint64_t seed) { return centred(plummer(n, seed)); }},
      {"uniform-sphere", "uniform ball of radius 1, random velocities in virial equilibrium",
       [](std::size_t n, std::uint64_t seed) { return centred(uniformSphere(n, seed)); }},
  };
  return scenes;
}

const Scene* findScene(std::string_view name) {
  const auto& scenes = allScenes();
  auto found = std::find_if(scenes.begin(), scenes.end(),
                            [&](const Scene& s) { return s.name == name; });
  return found == scenes.end() ? nullptr : &*found;
}

std::vector<std::string> sceneNames() {
  std::vector<std::string> names;
  for (const Scene& s : allScenes()) names.push_back(s.name);
  return names;
}

}  // namespace nbody
