#pragma once
// Initial conditions. Every scene is seeded and moved to the centre-of-mass frame (zero total
// momentum, centre of mass at the origin). Each body draws from its own random stream (of the
// seed and its index), and what a scene sums over its bodies it sums exactly, so that any range of
// rows can be made on its own, on any number of threads or ranks, with the bits of the whole
// (SceneChoice::generateRows): the scenes of a part a rank, and of every core. All have total mass
// 1 except figure-eight (three bodies of mass 1, as Chenciner and Montgomery state it). Velocities
// assume G = 1. Bodies are numbered 1..N in order; their components (physics/state.h) are
// kDefaultComponent except in disk (the central body stays there, the disk's bodies are
// kDiskComponent; protoplanets likewise) and galaxies (the first galaxy's bodies kDefaultComponent,
// the second's kSecondGalaxyComponent).

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <glm/vec3.hpp>

#include "physics/state.h"
#include "util/exact_sum.h"

namespace nbody {

// What a scene is made from. Scenes that have a fixed number of bodies (kepler: 2, figure-eight: 3)
// ignore bodyCount; the scene parameters (sceneParameters()) are read by the scenes they name.
struct SceneOptions {
  std::size_t bodyCount = 16384;
  std::uint64_t seed = 1;
  double eccentricity = 0.5;
  // Where the scene's centre of mass is placed, (orbitRadius, 0, 0), and how it moves,
  // (0, orbitSpeed, 0): a cluster on a circular orbit in an external potential when orbitSpeed is
  // the potential's circular speed at orbitRadius. Both 0: the scene as made (at the origin, at
  // rest).
  double orbitRadius = 0.0, orbitSpeed = 0.0;

  bool operator==(const SceneOptions&) const = default;
};

// A number a scene reads besides N and the seed. Every command that makes scenes offers it as
// --NAME, and the window as a slider while a scene that reads it is shown: adding one is a field
// above and a row in sceneParameters().
struct SceneParameter {
  std::string name, description;
  double low, high;  // the range it may take
  double SceneOptions::*field;
  std::vector<std::string> scenes;  // the scenes that read it; empty: every scene
};
const std::vector<SceneParameter>& sceneParameters();

// A body in double precision, as a scene makes it.
struct SceneBody {
  double mass = 0.0;
  glm::dvec3 position{0.0}, velocity{0.0};
  std::uint8_t component = kDefaultComponent;
};

// How a scene makes its bodies: body(index, seed) depends on the scene's options, the index and
// the seed alone.
struct SceneRecipe {
  std::function<SceneBody(std::size_t index, std::uint64_t seed)> body;
  bool virial = false;  // the velocities then scaled alike, to 2T = 0.6 (a uniform ball)
};

// Sums over every body of a scene made in parts: replaces each of the sums of this part's bodies
// by the sum of every part's (exact sums add as integers: the bits of any split). Every maker of a
// part calls it alike (e.g. exactSumsOnEveryRank); empty where one process makes every body.
using SumAcross = std::function<void(std::span<ExactSum>)>;

struct Scene {
  std::string name;
  std::string description;
  std::function<SceneRecipe(const SceneOptions&)> recipe;
  std::size_t fixedBodyCount = 0;  // the bodies it always has (kepler: 2); 0: bodyCount's

  State generate(const SceneOptions& options) const;
  State generate(std::size_t bodyCount, std::uint64_t seed) const;
  // The bodies it makes: fixedBodyCount, else options.bodyCount.
  std::size_t bodyCount(const SceneOptions& options) const {
    return fixedBodyCount > 0 ? fixedBodyCount : options.bodyCount;
  }
};

// The constants that define the scenes, for the tests and the documentation.
namespace scene {
inline constexpr double kShellInnerRadius = 0.625, kShellOuterRadius = 1.0;  // NVIDIA's 2.5 : 4
inline constexpr double kShellAngularVelocity = 1.0;       // outer equator at the circular speed
inline constexpr double kExpandRate = 1.4142135623730951;  // sqrt(2 G M / R^3): escape speed
inline constexpr double kDiskCentralMassFraction = 0.5;
inline constexpr double kDiskScaleLength = 0.2, kDiskInnerRadius = 0.05, kDiskOuterRadius = 1.0;
inline constexpr double kDiskScaleHeight = 0.02;         // sech^2(z / z0) vertical profile
inline constexpr double kDiskVelocityDispersion = 0.05;  // of the circular speed
inline constexpr double kGalaxySeparation = 4.0, kGalaxyImpactParameter = 1.0;
inline constexpr double kGalaxyTilt = 1.0471975511965976;  // pi / 3, of the second about x
inline constexpr double kFigureEightPeriod = 6.32591398;   // Simo's value for the choreography
inline constexpr std::uint8_t kDiskComponent = 2;          // GADGET's disk type
inline constexpr double kStarMass = 0.99;                  // protoplanets: the rest is the ring's
inline constexpr double kRingInner = 0.8, kRingOuter = 1.2, kRingScatter = 0.01;
inline constexpr std::uint8_t kSecondGalaxyComponent =
    2;  // as GADGET's two-galaxy sample numbers them
}  // namespace scene

// A scene and what it is made from: what the command line and the window choose.
struct SceneChoice {
  std::string name = "plummer";
  SceneOptions options;

  bool operator==(const SceneChoice&) const = default;
  State generate() const;
  // Rows [first, last) of generate()'s state, bit for bit, made alone: `across` sums over the
  // other rows' makers (SumAcross). Bodies keep their IDs in the whole (first + 1, ...).
  State generateRows(std::size_t first, std::size_t last, const SumAcross& across) const;
  // The bodies generate() makes: options.bodyCount, or the scene's fixed count.
  std::size_t bodyCount() const;
};

const std::vector<Scene>& allScenes();
const Scene* findScene(std::string_view name);
std::vector<std::string> sceneNames();

// Two bodies of masses m1, m2 on a Kepler orbit of semi-major axis 1, starting at pericentre,
// in the centre-of-mass frame. Its period is 2 pi / sqrt(G (m1 + m2)).
State keplerPair(double eccentricity, double m1 = 0.5, double m2 = 0.5, double gravity = 1.0);

// Shifts positions and velocities so that the centre of mass rests at the origin, the centre and
// its velocity summed exactly: over `state` and, through `across`, every other part's bodies.
void moveToCentreOfMassFrame(State& state, const SumAcross& across = {});

}  // namespace nbody
