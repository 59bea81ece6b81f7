#pragma once
// The state every engine exchanges: float32, as it lives on the GPU (position + mass, velocity).

#include <cstddef>
#include <span>
#include <vector>

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

namespace nbody {

struct State {
  std::vector<glm::vec4> positionMass;  // xyz = position, w = mass
  std::vector<glm::vec4> velocity;      // xyz = velocity, w unused (0)

  std::size_t size() const { return positionMass.size(); }
  void resize(std::size_t bodyCount);
};

// The physical constants and the step size; everything an engine needs besides the method.
struct StepParams {
  double dt = 1e-3;
  double softening = 0.01;  // epsilon, not epsilon squared
  double gravity = 1.0;     // G
};

// Bodies in double precision, as the CPU engine keeps them between steps.
struct DoubleBodies {
  std::span<const double> mass;
  std::span<const glm::dvec3> position, velocity;
};

glm::dvec3 totalMomentum(const State& state);
glm::dvec3 centreOfMass(const State& state);
double totalMass(const State& state);

}  // namespace nbody
