#pragma once
// The state every engine exchanges: float32, as it lives on the GPU (position + mass, velocity),
// and who each body is: its particle ID and its component.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "physics/external_potential.h"
#include "util/exact_sum.h"

namespace nbody {

// A body's component is GADGET's particle type, so that every state can be written as GADGET files
// and read back as it was: 0 gas, 1 halo (dark matter), 2 disk, 3 bulge, 4 stars, 5 black holes.
// Scenes use them for their parts (physics/scenes.h); bodies of no particular kind are halo bodies,
// which every GADGET reader takes as collisionless (a gas body would need hydrodynamic fields).
// The most bodies a run takes: the decomposed tree, which alone goes past one texture, numbers
// bodies and tree nodes (fewer than 2N) in 32-bit words.
inline constexpr std::size_t kLargestBodyCount = (std::size_t{1} << 31) - 1;
inline constexpr int kComponentCount = 6;
inline constexpr std::uint8_t kDefaultComponent = 1;

struct State {
  std::vector<glm::vec4> positionMass;  // xyz = position, w = mass
  std::vector<glm::vec4>
      velocity;  // xyz = velocity, w = 0 here (the GPU's textures keep the component there)
  // Who each body is, whatever an engine does with the order of its own copies: a 64-bit particle
  // ID (from the input file; 1..N for a scene) and a component (< kComponentCount). Both are either
  // one per body or empty, for a state built body by body (the tests'): bodies 1..N, all of
  // kDefaultComponent. bodyId() and componentOf() read either.
  std::vector<std::uint64_t> id;
  std::vector<std::uint8_t> component;

  std::size_t size() const { return positionMass.size(); }
  // New bodies get the ID after their index (i + 1) and kDefaultComponent.
  void resize(std::size_t bodyCount);
};

std::uint64_t bodyId(const State& state, std::size_t body);
std::uint8_t componentOf(const State& state, std::size_t body);
// How many bodies of each component (kComponentCount counts).
std::vector<std::uint64_t> countsByComponent(const State& state);
// Fills what a state built body by body left empty (IDs 1..N, kDefaultComponent). Throws
// std::logic_error where velocities, IDs or components are neither empty nor one per body.
void completeIdentity(State& state);
// True when every body's ID is its index + 1 and its component kDefaultComponent: what a state
// without IDs and components means (CSV writes its two extra columns only where this is false).
bool hasDefaultIdentity(const State& state);

// A force pass at a step boundary that also screens for contacts (Engine::screenContacts):
// bodies of radius `radius`, or (radius 0) of (3 m / (4 pi density))^(1/3), `volume` being
// 3 / (4 pi density); the pass marks word `slot` of the engine's flags where two may touch.
struct ContactScreenPass {
  double radius = 0.0, volume = 0.0;
  int slot = 0;
};

// The physical constants and the step size; everything an engine needs besides the method.
struct StepParams {
  StepParams() = default;
  // The step, epsilon and G; no external potential, at time 0.
  StepParams(double step, double epsilon, double constant)
      : dt(step), softening(epsilon), gravity(constant) {}

  double dt = 1e-3;
  double softening = 0.01;  // epsilon, not epsilon squared
  double gravity = 1.0;     // G
  // Forces from outside the bodies (physics/external_potential.h); none: the bodies' own only.
  SharedPotential potential;
  // The simulated time, which a moving potential's centres follow: the state the next step starts
  // from is at startTime + stepsDone dt. Whoever steps an engine counts stepsDone on; an engine
  // sets stageFraction (the tableau's c of a stage) on its own copy. time() computes it so, never
  // by accumulation, so that a run made in chunks meets the times of a run made in one go.
  double startTime = 0.0;
  long long stepsDone = 0;
  double stageFraction = 0.0;

  // Set by a GPU engine on its own copy for a pass that screens for contacts; nothing otherwise.
  std::optional<ContactScreenPass> contactScreen;

  double time() const { return startTime + (double(stepsDone) + stageFraction) * dt; }
  // This, `steps` steps on and at `stage` of `method` (an engine's copy for one stage).
  StepParams atStage(long long steps, double fraction) const {
    StepParams at = *this;
    at.stepsDone += steps;
    at.stageFraction = fraction;
    return at;
  }
};

// Bodies in double precision, as the CPU engine keeps them between steps.
struct DoubleBodies {
  std::span<const double> mass;
  std::span<const glm::dvec3> position, velocity;
};

// The same bodies in double precision, in the state's order, where they hold more than float32:
// the CPU engine's state, a file that holds doubles. What the formats that can hold doubles write
// (CSV with the shortest digits that read back to the same double; GADGET HDF5 and GADGET-2 as
// float64) and give back, so that the CPU engine goes on from such a file bit for bit.
struct DoubleState {
  std::vector<double> mass;
  std::vector<glm::dvec3> position, velocity;

  std::size_t size() const { return mass.size(); }
  DoubleBodies view() const { return {mass, position, velocity}; }
};

// A copy of `bodies`.
DoubleState copyOf(const DoubleBodies& bodies);
// The doubles of `bodies`, or nothing where every one is a float32 of `state` (nothing to keep).
std::optional<DoubleState> doublesBeyond(const State& state, const DoubleBodies& bodies);

glm::dvec3 totalMomentum(const State& state);
glm::dvec3 centreOfMass(const State& state);
double totalMass(const State& state);

// The exact sums (util/exact_sum.h) of m, m r and m v over the state's bodies, on every core: the
// same bits for any order and split of the bodies (parts added across ranks as integers).
enum MassSum : std::size_t {
  kMass,
  kMassPosition,
  kMomentum = kMassPosition + 3,
  kMassSums = kMomentum + 3
};
using MassSums = std::array<ExactSum, kMassSums>;
MassSums massSumsOf(const State& state);

}  // namespace nbody
