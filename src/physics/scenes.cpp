#include "physics/scenes.h"

#include "util/named_table.h"
#include "util/parallel_exact_sums.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include <glm/geometric.hpp>
#include <glm/vec2.hpp>

namespace nbody {
namespace {

constexpr std::size_t kBodiesAThread = 4096;  // at least, a thread

// Uniform doubles in [0, 1) from body `body`'s own stream of a seed: xoshiro256** (Blackman and
// Vigna) started by SplitMix64 from the seed and the body's index, and a fixed conversion. A body
// draws from its stream alone, so that it comes out the same wherever it is made (any range of
// bodies, on any thread or rank), with every compiler and standard library.
class Random {
 public:
  Random(std::uint64_t seed, std::uint64_t body) {
    std::uint64_t mixer = seed;
    std::uint64_t start = splitMix(mixer) ^ (body * 0xd1b54a32d192ed03ull);
    for (std::uint64_t& word : state_) word = splitMix(start);
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  glm::dvec3 isotropic(double length) {
    const double cosTheta = uniform(-1.0, 1.0);
    const double sinTheta = std::sqrt(1.0 - cosTheta * cosTheta);
    const double phi = uniform(0.0, 2.0 * std::numbers::pi);
    return length * glm::dvec3(sinTheta * std::cos(phi), sinTheta * std::sin(phi), cosTheta);
  }

 private:
  static std::uint64_t splitMix(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t next() {
    const std::uint64_t result = std::rotl(state_[1] * 5, 7) * 9, shifted = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= shifted;
    state_[3] = std::rotl(state_[3], 45);
    return result;
  }
  std::array<std::uint64_t, 4> state_{};
};

// Aarseth, Henon & Wielen (1974), scaled to Henon units (G = M = 1, E = -1/4): the Plummer
// scale radius is then 3 pi / 16.
SceneBody plummerBody(std::size_t, std::size_t bodyCount, Random& random) {
  const double lengthScale = 3.0 * std::numbers::pi / 16.0;
  const double velocityScale = 1.0 / std::sqrt(lengthScale);
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
  return {1.0 / double(bodyCount), r, v};
}

// A uniform-density ball of radius 1 with isotropic random velocities, which the scene scales to
// virial equilibrium (2T = |W|, W = -3/5 G M^2 / R) once every body is made: SceneRecipe::virial.
SceneBody uniformSphereBody(std::size_t, std::size_t bodyCount, Random& random) {
  const glm::dvec3 r = random.isotropic(std::cbrt(random.uniform()));
  const glm::dvec3 v = random.isotropic(std::cbrt(random.uniform()));
  return {1.0 / double(bodyCount), r, v};
}

// The fraction of a thin exponential disk's mass inside planar radius R: R / R_d is Gamma(2)
// distributed (density ~ R exp(-R / R_d)), whose distribution function is 1 - (1 + x) exp(-x),
// cut to the disk's inner and outer radius.
double diskMassInside(double radius) {
  using namespace scene;
  const auto below = [](double r) {
    const double x = r / kDiskScaleLength;
    return 1.0 - (1.0 + x) * std::exp(-x);
  };
  return (below(radius) - below(kDiskInnerRadius)) /
         (below(kDiskOuterRadius) - below(kDiskInnerRadius));
}

// Body `index` of a thin exponential disk (surface density ~ exp(-R / R_d) between an inner and an
// outer radius) of `bodyCount - 1` equal bodies around one central body (index 0) that holds half
// of `mass`, in the xy plane, turning counter-clockwise seen from +z. Each body gets the circular
// speed of the mass inside its radius (the central body and the disk's expected mass there),
// counted as if it were spherical, plus a 5% random dispersion: near-circular orbits. The speeds
// assume no softening, which matters little for eps << the inner radius.
SceneBody diskBody(std::size_t index, std::size_t bodyCount, double mass, Random& random) {
  using namespace scene;
  const double diskMass = bodyCount > 1 ? (1.0 - kDiskCentralMassFraction) * mass : 0.0;
  if (index == 0) return {mass - diskMass, glm::dvec3(0.0), glm::dvec3(0.0)};
  double radius = 0.0;
  do {  // the sum of two exponentials
    radius = -kDiskScaleLength * std::log((1.0 - random.uniform()) * (1.0 - random.uniform()));
  } while (radius < kDiskInnerRadius || radius > kDiskOuterRadius);
  const double angle = random.uniform(0.0, 2.0 * std::numbers::pi);
  // A sech^2 vertical profile (an isothermal sheet) is the logistic distribution; u stays off 0
  // and 1, which cuts the profile at 14 scale heights.
  const double u = random.uniform(1e-12, 1.0 - 1e-12);
  const double height = 0.5 * kDiskScaleHeight * std::log(u / (1.0 - u));
  SceneBody body{diskMass / double(bodyCount - 1),
                 {radius * std::cos(angle), radius * std::sin(angle), height},
                 glm::dvec3(0.0),
                 kDiskComponent};
  const double enclosed = (mass - diskMass) + diskMass * diskMassInside(radius);
  const double circularSpeed = std::sqrt(enclosed / radius);
  const glm::dvec3 tangent(-std::sin(angle), std::cos(angle), 0.0);
  body.velocity = circularSpeed * tangent +
                  random.isotropic(kDiskVelocityDispersion * circularSpeed * random.uniform());
  return body;
}

// Body `index` of the disk scene: a disk of mass 1.
SceneBody diskSceneBody(std::size_t index, std::size_t bodyCount, Random& random) {
  return diskBody(index, bodyCount, 1.0, random);
}

// A star holding kStarMass (body 0) and `bodyCount - 1` equal planetesimals in a ring between
// kRingInner and kRingOuter (radius uniform), on near-circular orbits about the star (Keplerian
// speed, eccentricities and inclinations of order kRingScatter): what --collisions merge turns
// into protoplanets, and the star accretes.
SceneBody protoplanetBody(std::size_t index, std::size_t bodyCount, Random& random) {
  using namespace scene;
  if (index == 0) return {bodyCount > 1 ? kStarMass : 1.0, glm::dvec3(0.0), glm::dvec3(0.0)};
  const double radius = random.uniform(kRingInner, kRingOuter);
  const double angle = random.uniform(0.0, 2.0 * std::numbers::pi);
  const glm::dvec3 out(std::cos(angle), std::sin(angle), 0.0), along(-out.y, out.x, 0.0);
  const double speed = std::sqrt(kStarMass / radius);
  SceneBody body{(1.0 - kStarMass) / double(bodyCount - 1), glm::dvec3(0.0), glm::dvec3(0.0),
                 kDiskComponent};
  body.position =
      radius * out + glm::dvec3(0.0, 0.0, kRingScatter * radius * random.uniform(-1.0, 1.0));
  body.velocity = speed * along + random.isotropic(kRingScatter * speed * random.uniform());
  return body;
}

// Two disks of half the mass each (bodies [0, (N + 1) / 2) and the rest), the second tilted about
// the x axis, `kGalaxySeparation` apart with an impact parameter, approaching each other at the
// parabolic speed of the pair: they merge.
SceneBody galaxyBody(std::size_t index, std::size_t bodyCount, Random& random) {
  using namespace scene;
  const std::size_t firstCount = (bodyCount + 1) / 2;
  const double firstMass = double(firstCount) / double(bodyCount);
  const double secondMass = 1.0 - firstMass;
  const glm::dvec3 offset(kGalaxySeparation, kGalaxyImpactParameter, 0.0);
  const double approachSpeed = std::sqrt(2.0 / glm::length(offset));  // G (m1 + m2) = 1
  if (index < firstCount) {
    SceneBody body = diskBody(index, firstCount, firstMass, random);
    body.component = kDefaultComponent;  // a galaxy is one component, its centre and disk alike
    body.position -= secondMass * offset;
    body.velocity += glm::dvec3(secondMass * approachSpeed, 0.0, 0.0);
    return body;
  }
  const double c = std::cos(kGalaxyTilt), s = std::sin(kGalaxyTilt);
  const auto tilted = [&](glm::dvec3 v) {
    return glm::dvec3(v.x, c * v.y - s * v.z, s * v.y + c * v.z);
  };
  SceneBody body = diskBody(index - firstCount, bodyCount - firstCount, secondMass, random);
  body.component = kSecondGalaxyComponent;
  body.position = tilted(body.position) + firstMass * offset;
  body.velocity = tilted(body.velocity) - glm::dvec3(firstMass * approachSpeed, 0.0, 0.0);
  return body;
}

// After NVIDIA's nbody sample: bodies in a spherical shell (radius uniform between the inner and
// the outer radius, direction isotropic) turning rigidly about the z axis.
SceneBody shellBody(std::size_t, std::size_t bodyCount, Random& random) {
  using namespace scene;
  const glm::dvec3 r = random.isotropic(random.uniform(kShellInnerRadius, kShellOuterRadius));
  return {1.0 / double(bodyCount), r, kShellAngularVelocity * glm::dvec3(-r.y, r.x, 0.0)};
}

// After NVIDIA's nbody sample: a uniform ball of radius 1 expanding as v = H r, with H chosen so
// that the kinetic energy equals |W| (2T / |W| = 2): it is marginally unbound and expands forever.
SceneBody expandBody(std::size_t, std::size_t bodyCount, Random& random) {
  const glm::dvec3 r = random.isotropic(std::cbrt(random.uniform()));
  return {1.0 / double(bodyCount), r, scene::kExpandRate * r};
}

std::vector<SceneBody> bodiesOf(const State& state) {
  std::vector<SceneBody> bodies(state.size());
  for (std::size_t i = 0; i < state.size(); ++i)
    bodies[i] = {state.positionMass[i].w, glm::dvec3(state.positionMass[i]),
                 glm::dvec3(state.velocity[i])};
  return bodies;
}

// Chenciner & Montgomery (2000): three equal masses chasing each other along a figure eight,
// G = m = 1 (total mass 3), initial conditions as Simo computed them.
std::vector<SceneBody> figureEight() {
  const glm::dvec3 x1(0.97000436, -0.24308753, 0.0);
  const glm::dvec3 v3(-0.93240737, -0.86473146, 0.0);
  return {{1.0, x1, -0.5 * v3}, {1.0, -x1, -0.5 * v3}, {1.0, glm::dvec3(0.0), v3}};
}

// A scene whose body `index` of N is make(index, N, random), `random` the body's own stream.
using MakeBody = SceneBody (*)(std::size_t index, std::size_t bodyCount, Random& random);
std::function<SceneRecipe(const SceneOptions&)> eachBody(MakeBody make, bool virial = false) {
  return [make, virial](const SceneOptions& options) {
    return SceneRecipe{
        [make, bodyCount = options.bodyCount](std::size_t index, std::uint64_t seed) {
          Random random(seed, index);
          return make(index, bodyCount, random);
        },
        virial};
  };
}

// A scene of a few bodies given whole.
SceneRecipe fixedBodies(std::vector<SceneBody> bodies) {
  return {
      [bodies = std::move(bodies)](std::size_t index, std::uint64_t) { return bodies.at(index); },
      false};
}

// Row k of a state whose first row is body `first` of the whole: `body` as float32.
void putRow(State& state, std::size_t k, const SceneBody& body, std::size_t first) {
  state.positionMass[k] = glm::vec4(glm::vec3(body.position), float(body.mass));
  state.velocity[k] = glm::vec4(glm::vec3(body.velocity), 0.0f);
  state.component[k] = body.component;
  state.id[k] = first + k + 1;
}

// Scales `velocities` (the rows' in double) so that the kinetic energy of every body made is
// 0.3 = |W| / 2 of a uniform ball of radius 1 (the masses as the state rounds them), into `state`.
void scaleToVirial(State& state, const std::vector<glm::dvec3>& velocities,
                   const SumAcross& across) {
  std::array<ExactSum, 1> kinetic =
      exactSumsOver<1>(state.size(), kBodiesAThread, [&](std::size_t k, auto& sums) {
        sums[0].add(0.5 * double(state.positionMass[k].w) * glm::dot(velocities[k], velocities[k]));
      });
  if (across) across(kinetic);
  const double total = kinetic[0].value(), virialKinetic = 0.5 * 0.6;
  const double scale = total > 0.0 ? std::sqrt(virialKinetic / total) : 0.0;
  for (std::size_t k = 0; k < state.size(); ++k)
    state.velocity[k] = glm::vec4(glm::vec3(scale * velocities[k]), 0.0f);
}

// Rows [first, last) of the scene `recipe` makes, moved to the centre-of-mass frame of every
// body, as scenes.h says. Each body goes to its row as it is made (in double only the velocities
// a virial scene scales after).
State makeRows(const SceneRecipe& recipe, std::uint64_t seed, std::size_t first, std::size_t last,
               const SumAcross& across) {
  State state;
  state.resize(last - first);
  std::vector<glm::dvec3> velocities(recipe.virial ? state.size() : 0);
  parallelForOrHere(state.size(), kBodiesAThread, [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      const SceneBody body = recipe.body(first + k, seed);
      putRow(state, k, body, first);
      if (recipe.virial) velocities[k] = body.velocity;
    }
  });
  if (recipe.virial) scaleToVirial(state, velocities, across);
  moveToCentreOfMassFrame(state, across);
  return state;
}

}  // namespace

void moveToCentreOfMassFrame(State& state, const SumAcross& across) {
  MassSums sums = massSumsOf(state);
  if (across) across(sums);
  const double mass = sums[kMass].value();
  if (!(mass > 0.0)) return;
  glm::dvec3 centre, drift;
  for (std::size_t k = 0; k < 3; ++k) {
    centre[int(k)] = sums[kMassPosition + k].value() / mass;
    drift[int(k)] = sums[kMomentum + k].value() / mass;
  }
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
      {"plummer", "Plummer sphere in Henon units (G = M = 1, E = -1/4)", eachBody(plummerBody)},
      {"uniform-sphere", "uniform ball of radius 1, random velocities in virial equilibrium",
       eachBody(uniformSphereBody, true)},
      {"disk", "rotating disk galaxy: exponential disk around a central mass, near-circular orbits",
       eachBody(diskSceneBody)},
      {"galaxies", "two disk galaxies on a collision course", eachBody(galaxyBody)},
      {"shell", "spherical shell turning about the z axis (NVIDIA's sample)", eachBody(shellBody)},
      {"expand", "uniform ball expanding at the escape speed (NVIDIA's sample)",
       eachBody(expandBody)},
      {"protoplanets",
       "a star and a ring of planetesimals on near-circular orbits, to merge with --collisions",
       eachBody(protoplanetBody)},
      {"kepler", "two bodies on a Kepler orbit of semi-major axis 1 (--eccentricity; 2 bodies)",
       [](const SceneOptions& o) { return fixedBodies(bodiesOf(keplerPair(o.eccentricity))); }, 2},
      {"figure-eight", "three-body figure-eight choreography (3 bodies of mass 1)",
       [](const SceneOptions&) { return fixedBodies(figureEight()); }, 3},
  };
  return scenes;
}

State Scene::generate(const SceneOptions& options) const {
  return makeRows(recipe(options), options.seed, 0, bodyCount(options), {});
}

State Scene::generate(std::size_t bodyCount, std::uint64_t seed) const {
  SceneOptions options;
  options.bodyCount = bodyCount;
  options.seed = seed;
  return generate(options);
}

const Scene* findScene(std::string_view name) { return findByName(allScenes(), name); }

const std::vector<SceneParameter>& sceneParameters() {
  static const std::vector<SceneParameter> parameters{
      {"eccentricity",
       "eccentricity of the kepler scene's orbit",
       0.0,
       0.99,
       &SceneOptions::eccentricity,
       {"kepler"}},
      {"orbit-radius",
       "place the scene's centre of mass at (R, 0, 0), e.g. in an external potential (--potential)",
       0.0,
       1e6,
       &SceneOptions::orbitRadius,
       {}},
      {"orbit-speed",
       "move the scene's centre of mass at (0, V, 0): the circular speed at --orbit-radius puts "
       "it on a circular orbit",
       0.0,
       1e6,
       &SceneOptions::orbitSpeed,
       {}},
  };
  return parameters;
}

std::size_t SceneChoice::bodyCount() const {
  const Scene* scene = findScene(name);
  return scene ? scene->bodyCount(options) : options.bodyCount;
}

State SceneChoice::generate() const { return generateRows(0, bodyCount(), {}); }

State SceneChoice::generateRows(std::size_t first, std::size_t last,
                                const SumAcross& across) const {
  const Scene* scene = findScene(name);
  if (!scene) throw std::invalid_argument("unknown scene " + name);
  if (first > last || last > bodyCount())
    throw std::invalid_argument("rows " + std::to_string(first) + " to " + std::to_string(last) +
                                " of a scene of " + std::to_string(bodyCount()) + " bodies");
  State state = makeRows(scene->recipe(options), options.seed, first, last, across);
  // Added only where asked: x + 0 would turn a -0 into +0, another bit pattern.
  if (options.orbitRadius != 0.0)
    for (glm::vec4& body : state.positionMass) body.x += float(options.orbitRadius);
  if (options.orbitSpeed != 0.0)
    for (glm::vec4& body : state.velocity) body.y += float(options.orbitSpeed);
  return state;
}

std::vector<std::string> sceneNames() { return namesOf(allScenes()); }

}  // namespace nbody
