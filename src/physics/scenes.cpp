#include "physics/scenes.h"

#include "util/named_table.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>

#include <glm/geometric.hpp>
#include <glm/vec2.hpp>

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

// Bodies in double precision, for scenes assembled from rotated and shifted parts.
struct Body {
  double mass = 0.0;
  glm::dvec3 position{0.0}, velocity{0.0};
  std::uint8_t component = kDefaultComponent;
};

State toState(const std::vector<Body>& bodies) {
  State state;
  state.resize(bodies.size());
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    state.positionMass[i] = glm::vec4(glm::vec3(bodies[i].position), float(bodies[i].mass));
    state.velocity[i] = glm::vec4(glm::vec3(bodies[i].velocity), 0.0f);
    state.component[i] = bodies[i].component;
  }
  return state;
}

// A thin exponential disk (surface density ~ exp(-R / R_d) between an inner and an outer radius)
// of `bodyCount - 1` equal bodies around one central body that holds half of `mass`, in the xy
// plane, turning counter-clockwise seen from +z. Each body gets the circular speed of the mass
// inside its radius, counted as if it were spherical, plus a 5% random dispersion: near-circular
// orbits. The speeds assume no softening, which matters little for eps << the inner radius.
std::vector<Body> exponentialDisk(std::size_t bodyCount, double mass, Random& random) {
  using namespace scene;
  std::vector<Body> bodies(bodyCount);
  if (bodyCount == 0) return bodies;
  const double diskMass = bodyCount > 1 ? (1.0 - kDiskCentralMassFraction) * mass : 0.0;
  bodies[0].mass = mass - diskMass;
  const std::size_t diskBodies = bodyCount - 1;
  for (std::size_t i = 1; i < bodyCount; ++i) {
    // R / R_d is Gamma(2)-distributed (density ~ R exp(-R / R_d)): the sum of two exponentials.
    double radius = 0.0;
    do {
      radius = -kDiskScaleLength * std::log((1.0 - random.uniform()) * (1.0 - random.uniform()));
    } while (radius < kDiskInnerRadius || radius > kDiskOuterRadius);
    const double angle = random.uniform(0.0, 2.0 * std::numbers::pi);
    // A sech^2 vertical profile (an isothermal sheet) is the logistic distribution; u stays off 0
    // and 1, which cuts the profile at 14 scale heights.
    const double u = random.uniform(1e-12, 1.0 - 1e-12);
    const double height = 0.5 * kDiskScaleHeight * std::log(u / (1.0 - u));
    bodies[i].mass = diskMass / double(diskBodies);
    bodies[i].position = {radius * std::cos(angle), radius * std::sin(angle), height};
    bodies[i].component = scene::kDiskComponent;
  }
  // Mass inside each body's radius: the central body and the disk bodies nearer the centre.
  std::vector<std::size_t> byRadius(diskBodies);
  for (std::size_t k = 0; k < diskBodies; ++k) byRadius[k] = k + 1;
  const auto planarRadius = [&](std::size_t i) {
    return glm::length(glm::dvec2(bodies[i].position));
  };
  std::sort(byRadius.begin(), byRadius.end(),
            [&](std::size_t a, std::size_t b) { return planarRadius(a) < planarRadius(b); });
  for (std::size_t rank = 0; rank < diskBodies; ++rank) {
    Body& body = bodies[byRadius[rank]];
    const double radius = planarRadius(byRadius[rank]);
    const double enclosed = bodies[0].mass + double(rank) * body.mass;
    const double circularSpeed = std::sqrt(enclosed / radius);
    const glm::dvec3 tangent(-body.position.y / radius, body.position.x / radius, 0.0);
    body.velocity = circularSpeed * tangent +
                    random.isotropic(kDiskVelocityDispersion * circularSpeed * random.uniform());
  }
  return bodies;
}

State disk(const SceneOptions& options) {
  Random random(options.seed);
  return toState(exponentialDisk(options.bodyCount, 1.0, random));
}

// A star holding kStarMass at the origin and `bodyCount - 1` equal planetesimals in a ring
// between kRingInner and kRingOuter (radius uniform), on near-circular orbits about the star
// (Keplerian speed, eccentricities and inclinations of order kRingScatter): what --collisions
// merge turns into protoplanets, and the star accretes.
State protoplanets(const SceneOptions& options) {
  using namespace scene;
  Random random(options.seed);
  std::vector<Body> bodies(options.bodyCount);
  if (bodies.empty()) return {};
  bodies[0].mass = options.bodyCount > 1 ? kStarMass : 1.0;
  for (std::size_t i = 1; i < bodies.size(); ++i) {
    const double radius = random.uniform(kRingInner, kRingOuter);
    const double angle = random.uniform(0.0, 2.0 * std::numbers::pi);
    const glm::dvec3 out(std::cos(angle), std::sin(angle), 0.0), along(-out.y, out.x, 0.0);
    const double speed = std::sqrt(kStarMass / radius);
    Body& body = bodies[i];
    body.mass = (1.0 - kStarMass) / double(bodies.size() - 1);
    body.position =
        radius * out + glm::dvec3(0.0, 0.0, kRingScatter * radius * random.uniform(-1.0, 1.0));
    body.velocity = speed * along + random.isotropic(kRingScatter * speed * random.uniform());
    body.component = kDiskComponent;
  }
  return toState(bodies);
}

// Two disks of half the mass each, the second tilted about the x axis, `kGalaxySeparation` apart
// with an impact parameter, approaching each other at the parabolic speed of the pair: they merge.
State galaxies(const SceneOptions& options) {
  using namespace scene;
  Random random(options.seed);
  const std::size_t firstCount = (options.bodyCount + 1) / 2;
  const double firstMass = double(firstCount) / double(options.bodyCount);
  const double secondMass = 1.0 - firstMass;
  std::vector<Body> bodies = exponentialDisk(firstCount, firstMass, random);
  const std::vector<Body> second =
      exponentialDisk(options.bodyCount - firstCount, secondMass, random);

  const glm::dvec3 offset(kGalaxySeparation, kGalaxyImpactParameter, 0.0);
  const double approachSpeed = std::sqrt(2.0 / glm::length(offset));  // G (m1 + m2) = 1
  const double c = std::cos(kGalaxyTilt), s = std::sin(kGalaxyTilt);
  const auto tilted = [&](glm::dvec3 v) {
    return glm::dvec3(v.x, c * v.y - s * v.z, s * v.y + c * v.z);
  };
  for (Body& body : bodies) {
    body.component = kDefaultComponent;  // a galaxy is one component, its centre and disk alike
    body.position -= secondMass * offset;
    body.velocity += glm::dvec3(secondMass * approachSpeed, 0.0, 0.0);
  }
  for (Body body : second) {
    body.component = scene::kSecondGalaxyComponent;
    body.position = tilted(body.position) + firstMass * offset;
    body.velocity = tilted(body.velocity) - glm::dvec3(firstMass * approachSpeed, 0.0, 0.0);
    bodies.push_back(body);
  }
  return toState(bodies);
}

// Bodies of equal mass at random places, each moving with the velocity field where it is.
template <typename RandomPlace, typename VelocityField>
State equalMassFlow(const SceneOptions& options, RandomPlace randomPlace,
                    VelocityField velocityAt) {
  Random random(options.seed);
  std::vector<Body> bodies(options.bodyCount);
  for (Body& body : bodies) {
    body.mass = 1.0 / double(options.bodyCount);
    body.position = randomPlace(random);
    body.velocity = velocityAt(body.position);
  }
  return toState(bodies);
}

// After NVIDIA's nbody sample: bodies in a spherical shell (radius uniform between the inner and
// the outer radius, direction isotropic) turning rigidly about the z axis.
State shell(const SceneOptions& options) {
  using namespace scene;
  return equalMassFlow(
      options,
      [](Random& random) {
        return random.isotropic(random.uniform(kShellInnerRadius, kShellOuterRadius));
      },
      [](glm::dvec3 r) { return kShellAngularVelocity * glm::dvec3(-r.y, r.x, 0.0); });
}

// After NVIDIA's nbody sample: a uniform ball of radius 1 expanding as v = H r, with H chosen so
// that the kinetic energy equals |W| (2T / |W| = 2): it is marginally unbound and expands forever.
State expand(const SceneOptions& options) {
  return equalMassFlow(
      options, [](Random& random) { return random.isotropic(std::cbrt(random.uniform())); },
      [](glm::dvec3 r) { return scene::kExpandRate * r; });
}

// Chenciner & Montgomery (2000): three equal masses chasing each other along a figure eight,
// G = m = 1 (total mass 3), initial conditions as Simo computed them.
State figureEight() {
  const glm::dvec3 x1(0.97000436, -0.24308753, 0.0);
  const glm::dvec3 v3(-0.93240737, -0.86473146, 0.0);
  return toState({{1.0, x1, -0.5 * v3}, {1.0, -x1, -0.5 * v3}, {1.0, glm::dvec3(0.0), v3}});
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
       [](const SceneOptions& o) { return centred(plummer(o.bodyCount, o.seed)); }},
      {"uniform-sphere", "uniform ball of radius 1, random velocities in virial equilibrium",
       [](const SceneOptions& o) { return centred(uniformSphere(o.bodyCount, o.seed)); }},
      {"disk", "rotating disk galaxy: exponential disk around a central mass, near-circular orbits",
       [](const SceneOptions& o) { return centred(disk(o)); }},
      {"galaxies", "two disk galaxies on a collision course",
       [](const SceneOptions& o) { return centred(galaxies(o)); }},
      {"shell", "spherical shell turning about the z axis (NVIDIA's sample)",
       [](const SceneOptions& o) { return centred(shell(o)); }},
      {"expand", "uniform ball expanding at the escape speed (NVIDIA's sample)",
       [](const SceneOptions& o) { return centred(expand(o)); }},
      {"protoplanets",
       "a star and a ring of planetesimals on near-circular orbits, to merge with --collisions",
       [](const SceneOptions& o) { return centred(protoplanets(o)); }},
      {"kepler", "two bodies on a Kepler orbit of semi-major axis 1 (--eccentricity; 2 bodies)",
       [](const SceneOptions& o) { return centred(keplerPair(o.eccentricity)); }, 2},
      {"figure-eight", "three-body figure-eight choreography (3 bodies of mass 1)",
       [](const SceneOptions&) { return centred(figureEight()); }, 3},
  };
  return scenes;
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
  return scene && scene->fixedBodyCount > 0 ? scene->fixedBodyCount : options.bodyCount;
}

State SceneChoice::generate() const {
  const Scene* scene = findScene(name);
  if (!scene) throw std::invalid_argument("unknown scene " + name);
  State state = scene->generate(options);
  // Added only where asked: x + 0 would turn a -0 into +0, another bit pattern.
  if (options.orbitRadius != 0.0)
    for (glm::vec4& body : state.positionMass) body.x += float(options.orbitRadius);
  if (options.orbitSpeed != 0.0)
    for (glm::vec4& body : state.velocity) body.y += float(options.orbitSpeed);
  return state;
}

std::vector<std::string> sceneNames() { return namesOf(allScenes()); }

}  // namespace nbody
