#pragma once
// Initial conditions. Every scene is seeded, has total mass 1 and is moved to the centre-of-mass
// frame (zero total momentum, centre of mass at the origin).

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "physics/state.h"

namespace nbody {

struct Scene {
  std::string name;
  std::string description;
  std::function<State(std::size_t bodyCount, std::uint64_t seed)> generate;
};

const std::vector<Scene>& allScenes();
const Scene* findScene(std::string_view name);
std::vector<std::string> sceneNames();

// Two bodies of masses m1, m2 on a Kepler orbit of semi-major axis 1, starting at pericentre,
// in the centre-of-mass frame. Its period is 2 pi / sqrt(G (m1 + m2)).
State keplerPair(double eccentricity, double m1 = 0.5, double m2 = 0.5, double gravity = 1.0);

// Shifts positions and velocities so that the centre of mass rests at the origin.
void moveToCentreOfMassFrame(State& state);

}  // namespace nbody
