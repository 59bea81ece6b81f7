// Every scene: its number of bodies, total mass, zero momentum, and the property that makes it
// that scene, checked with the double-precision diagnostics or by integrating it.

#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstring>
#include <span>
#include <thread>

#include "diagnostics/diagnostics.h"
#include "engines/cpu_engine.h"
#include "io/binary_snapshot.h"
#include "support/test_support.h"
#include "util/std_compat.h"

namespace nbody {
namespace {

using namespace scene;

StepParams unsoftened() {
  StepParams params;
  params.softening = 0.0;
  return params;
}

Diagnostics diagnosticsOf(const State& state) { return computeDiagnostics(state, unsoftened()); }

glm::dvec3 positionOf(const State& state, std::size_t i) {
  return glm::dvec3(state.positionMass[i]);
}
glm::dvec3 velocityOf(const State& state, std::size_t i) { return glm::dvec3(state.velocity[i]); }

struct SceneCase {
  std::string name;
  std::size_t expectedBodies;  // for --bodies 1000
  double expectedMass;
};

class EveryScene : public ::testing::TestWithParam<SceneCase> {};

TEST_P(EveryScene, HasItsBodiesAndMassAndRestsAtTheOrigin) {
  const SceneCase& c = GetParam();
  const State state = findScene(c.name)->generate(1000, 42);
  EXPECT_EQ(state.size(), c.expectedBodies);
  const Diagnostics d = diagnosticsOf(state);
  EXPECT_NEAR(d.mass, c.expectedMass, 1e-6);
  // What is left after the move to the centre-of-mass frame is float32 rounding of the state.
  EXPECT_LT(glm::length(d.momentum), 1e-6);
  EXPECT_LT(glm::length(d.centreOfMass), 1e-6);
  for (std::size_t i = 0; i < state.size(); ++i) {
    EXPECT_GT(state.positionMass[i].w, 0.0f) << "body " << i;
    EXPECT_EQ(state.velocity[i].w, 0.0f) << "body " << i;
  }
}

TEST_P(EveryScene, IsTheSameForTheSameSeed) {
  const Scene& scene = *findScene(GetParam().name);
  const State a = scene.generate(500, 7), b = scene.generate(500, 7);
  EXPECT_EQ(a.positionMass, b.positionMass);
  EXPECT_EQ(a.velocity, b.velocity);
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, EveryScene,
    ::testing::Values(SceneCase{"plummer", 1000, 1.0}, SceneCase{"uniform-sphere", 1000, 1.0},
                      SceneCase{"disk", 1000, 1.0}, SceneCase{"galaxies", 1000, 1.0},
                      SceneCase{"shell", 1000, 1.0}, SceneCase{"expand", 1000, 1.0},
                      SceneCase{"protoplanets", 1000, 1.0}, SceneCase{"kepler", 2, 1.0},
                      SceneCase{"figure-eight", 3, 3.0}),
    [](const auto& param) {
      std::string name = param.param.name;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

TEST(Scenes, EveryRegisteredSceneIsTested) {
  EXPECT_EQ(sceneNames(),
            (std::vector<std::string>{"plummer", "uniform-sphere", "disk", "galaxies", "shell",
                                      "expand", "protoplanets", "kepler", "figure-eight"}));
}

TEST(Scenes, RandomScenesDependOnTheSeed) {
  for (const char* name :
       {"plummer", "uniform-sphere", "disk", "galaxies", "shell", "expand", "protoplanets"})
    EXPECT_NE(findScene(name)->generate(100, 1).positionMass,
              findScene(name)->generate(100, 2).positionMass)
        << name;
}

// The generators must not change unnoticed: tests and reference files depend on their bits. The
// fingerprints are those of round 48's generators (a random stream a body, sums exact: the bits of
// a scene made in parts); the foundation's (0130ebf) drew every body from one stream.
TEST(Scenes, PlummerAndUniformSphereAreBitForBitRound48s) {
  const auto fingerprint = [](const State& state) {
    std::string bytes(state.size() * 2 * sizeof(glm::vec4), '\0');
    std::memcpy(bytes.data(), state.positionMass.data(), state.size() * sizeof(glm::vec4));
    std::memcpy(bytes.data() + state.size() * sizeof(glm::vec4), state.velocity.data(),
                state.size() * sizeof(glm::vec4));
    return fnv1a64(bytes);
  };
  EXPECT_EQ(fingerprint(findScene("plummer")->generate(1000, 3)), 0x941233592c15884full);
  EXPECT_EQ(fingerprint(findScene("uniform-sphere")->generate(1000, 3)), 0xbc1aec751329e37eull);
}

template <typename T>
std::string bytesOf(std::span<T> values) {
  return {reinterpret_cast<const char*>(values.data()), values.size_bytes()};
}

// K makers of parts, each on its own thread, summing across through shared memory: what ranks do
// through MPI (exactSumsOnEveryRank).
class PartMakers {
 public:
  explicit PartMakers(std::size_t makers) : sums_(makers), meeting_(std::ptrdiff_t(makers)) {}
  SumAcross across(std::size_t maker) {
    return [this, maker](std::span<ExactSum> own) {
      sums_[maker].assign(own.begin(), own.end());
      meeting_.arrive_and_wait();
      std::vector<ExactSum> all(own.size());
      for (const std::vector<ExactSum>& part : sums_)
        for (std::size_t s = 0; s < all.size(); ++s) all[s].merge(part[s]);
      meeting_.arrive_and_wait();  // every maker has read every part
      std::copy(all.begin(), all.end(), own.begin());
    };
  }

 private:
  std::vector<std::vector<ExactSum>> sums_;
  std::barrier<> meeting_;
};

// Rows [first, last) made alone, the others' sums added across, are the whole's rows, bit for bit,
// IDs and components included: for parts of any size, empty ones too, and every scene.
TEST(Scenes, EveryPartMadeAloneIsTheWholesRows) {
  for (const std::string& name : sceneNames()) {
    SceneChoice choice{name, {}};
    choice.options.bodyCount = 10007;
    choice.options.seed = 5;
    choice.options.orbitRadius = 3.0;
    const State whole = choice.generate();
    const std::size_t n = choice.bodyCount();
    std::vector<std::size_t> cuts{0, 1, n / 3, n / 3, n - n / 5, n};  // parts of 1 and 0 bodies
    for (std::size_t k = 1; k < cuts.size(); ++k) cuts[k] = std::clamp(cuts[k], cuts[k - 1], n);
    PartMakers makers(cuts.size() - 1);
    std::vector<State> parts(cuts.size() - 1);
    {
      std::vector<JoiningThread> threads;
      for (std::size_t k = 0; k + 1 < cuts.size(); ++k)
        threads.emplace_back(
            [&, k] { parts[k] = choice.generateRows(cuts[k], cuts[k + 1], makers.across(k)); });
    }
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
      const auto rows = [&](const auto& all) {  // the whole's rows of part k, as bytes
        return bytesOf(std::span(all).subspan(cuts[k], cuts[k + 1] - cuts[k]));
      };
      EXPECT_EQ(bytesOf(std::span(parts[k].positionMass)), rows(whole.positionMass))
          << name << " part " << k;
      EXPECT_EQ(bytesOf(std::span(parts[k].velocity)), rows(whole.velocity))
          << name << " part " << k;
      EXPECT_EQ(parts[k].id, std::vector(whole.id.begin() + std::ptrdiff_t(cuts[k]),
                                         whole.id.begin() + std::ptrdiff_t(cuts[k + 1])))
          << name << " part " << k;
      EXPECT_EQ(bytesOf(std::span(parts[k].component)), rows(whole.component))
          << name << " part " << k;
    }
  }
}

// Henon units: T = 1/4, W = -1/2. At N = 4096 one seed's sampling moves E by ~0.007 (standard
// deviation over 100 seeds at N = 2048: 0.008 about a mean of -0.26, the finite N and the cut
// tail), 2T/|W| by ~2%: so the mean of 8 seeds, within 3 of its standard deviations; a kinetic or
// potential energy off by a factor is far outside.
TEST(Scenes, PlummerIsInVirialEquilibriumWithEnergyMinusAQuarter) {
  double energy = 0.0, virialRatio = 0.0;
  const int seeds = 8;
  for (int seed = 1; seed <= seeds; ++seed) {
    const Diagnostics d = diagnosticsOf(findScene("plummer")->generate(4096, seed));
    energy += d.total() / seeds;
    virialRatio += d.virialRatio() / seeds;
  }
  EXPECT_NEAR(virialRatio, 1.0, 0.03);
  EXPECT_NEAR(energy, -0.25, 0.02);
}

// Velocities are scaled to T = 0.3 = |W| / 2 for W = -3/5 G M^2 / R; the sampled W is within a
// few percent of that.
TEST(Scenes, UniformSphereIsInVirialEquilibriumInsideRadiusOne) {
  const State state = findScene("uniform-sphere")->generate(4096, 1);
  const Diagnostics d = diagnosticsOf(state);
  EXPECT_NEAR(d.virialRatio(), 1.0, 0.03);
  EXPECT_NEAR(d.potential, -0.6, 0.03);
  for (std::size_t i = 0; i < state.size(); ++i)
    ASSERT_LT(glm::length(positionOf(state, i)), 1.03) << "body " << i;  // 1 + the centring shift
}

// Angular momentum along +z, and rotation carrying nearly all the kinetic energy (near-circular
// orbits: the random 5% adds 0.25% of kinetic energy outside the rotation). In equilibrium the
// diagnostics' own potential agrees: 2T/|W| near 1.
TEST(Scenes, DiskRotatesAboutItsAxisOnNearCircularOrbits) {
  const State state = findScene("disk")->generate(2000, 3);
  const Diagnostics d = diagnosticsOf(state);
  EXPECT_GT(d.angularMomentum.z, 0.0);
  EXPECT_LT(glm::length(glm::dvec2(d.angularMomentum)), 1e-2 * d.angularMomentum.z);
  double rotational = 0.0, total = 0.0;
  for (std::size_t i = 1; i < state.size(); ++i) {  // body 0 is the central mass
    const glm::dvec3 r = positionOf(state, i), v = velocityOf(state, i);
    const glm::dvec3 azimuth = glm::normalize(glm::dvec3(-r.y, r.x, 0.0));
    const double m = state.positionMass[i].w;
    rotational += m * std::pow(glm::dot(v, azimuth), 2);
    total += m * glm::dot(v, v);
    ASSERT_LT(std::abs(r.z), 0.3) << "body " << i << " is outside the thin disk";
    ASSERT_LE(glm::length(glm::dvec2(r)), kDiskOuterRadius + 0.01) << "body " << i;
  }
  EXPECT_GT(rotational / total, 0.99);
  EXPECT_NEAR(d.virialRatio(), 1.0, 0.05);
  EXPECT_NEAR(state.positionMass[0].w, kDiskCentralMassFraction, 1e-7);
}

// The ring's bodies on near-circular Kepler orbits about the star: each within 1% of its circular
// speed sqrt(G M_star / r) and of the plane, between the ring's radii, the star holding 0.99.
TEST(Scenes, ProtoplanetsCircleTheStarInAThinRing) {
  const State state = findScene("protoplanets")->generate(2000, 4);
  EXPECT_NEAR(state.positionMass[0].w, kStarMass, 1e-7);
  const glm::dvec3 star = positionOf(state, 0), starVelocity = velocityOf(state, 0);
  for (std::size_t i = 1; i < state.size(); ++i) {
    const glm::dvec3 r = positionOf(state, i) - star, v = velocityOf(state, i) - starVelocity;
    const double radius = glm::length(glm::dvec2(r));
    ASSERT_GE(radius, kRingInner * (1.0 - 1e-6)) << "body " << i;
    ASSERT_LE(radius, kRingOuter * (1.0 + 1e-6)) << "body " << i;
    ASSERT_LE(std::abs(r.z), kRingScatter * radius * 1.0001) << "body " << i;
    const double circular = std::sqrt(kStarMass / glm::length(r));
    ASSERT_NEAR(glm::length(v), circular, 1.1 * kRingScatter * circular) << "body " << i;
    ASSERT_GT(glm::cross(r, v).z, 0.0) << "body " << i;
  }
}

struct Part {
  glm::dvec3 centre{0.0}, velocity{0.0}, spin{0.0};
};

// Centre of mass, its velocity, and the angular momentum about it, of bodies [begin, end).
Part partOf(const State& state, std::size_t begin, std::size_t end) {
  Part part;
  double mass = 0.0;
  for (std::size_t i = begin; i < end; ++i) {
    const double m = state.positionMass[i].w;
    mass += m;
    part.centre += m * positionOf(state, i);
    part.velocity += m * velocityOf(state, i);
  }
  part.centre /= mass;
  part.velocity /= mass;
  for (std::size_t i = begin; i < end; ++i)
    part.spin += double(state.positionMass[i].w) * glm::cross(positionOf(state, i) - part.centre,
                                                              velocityOf(state, i) - part.velocity);
  return part;
}

// Two spinning disks, the second tilted by 60 degrees about x, approaching each other at the
// parabolic speed from 4 apart with impact parameter 1: so their central bodies (0 and (n + 1) /
// 2), placed exactly, to float32 rounding. (Each disk's centre of mass is off its central body by
// the random placement of its bodies: the approach speed by ~2.5%, the impact parameter by ~0.09,
// one standard deviation over 200 seeds at n = 2000.)
TEST(Scenes, GalaxiesAreTwoDisksOnACollisionCourse) {
  const std::size_t n = 2000, second = (n + 1) / 2;
  const State state = findScene("galaxies")->generate(n, 5);
  const glm::dvec3 separation = positionOf(state, second) - positionOf(state, 0);
  const glm::dvec3 approach = velocityOf(state, second) - velocityOf(state, 0);
  const double distance = std::hypot(kGalaxySeparation, kGalaxyImpactParameter);
  EXPECT_NEAR(glm::length(separation), distance, 1e-5);
  EXPECT_NEAR(glm::length(approach), std::sqrt(2.0 / distance), 1e-5);
  EXPECT_LT(glm::dot(separation, approach), 0.0) << "they must approach";
  // Impact parameter: the part of the separation across the direction of approach.
  EXPECT_NEAR(glm::length(glm::cross(separation, glm::normalize(approach))), kGalaxyImpactParameter,
              1e-5);
  EXPECT_NEAR(state.positionMass[0].w, kDiskCentralMassFraction * 0.5, 1e-7);
  EXPECT_NEAR(state.positionMass[second].w, kDiskCentralMassFraction * 0.5, 1e-7);
  const Part first = partOf(state, 0, second), other = partOf(state, second, n);
  const glm::dvec3 tiltedAxis(0.0, -std::sin(kGalaxyTilt), std::cos(kGalaxyTilt));
  EXPECT_GT(glm::dot(glm::normalize(first.spin), glm::dvec3(0, 0, 1)), 0.999);
  EXPECT_GT(glm::dot(glm::normalize(other.spin), tiltedAxis), 0.999);
}

// A shell between the inner and outer radius turning rigidly about z: v = omega z x r. Moving to
// the centre-of-mass frame keeps a rigid rotation rigid, so that holds to float32 rounding; the
// radii move by the shift of the centre (~1/sqrt(N)).
TEST(Scenes, ShellTurnsRigidlyAboutTheZAxis) {
  const State state = findScene("shell")->generate(2000, 9);
  double innermost = 1e9, outermost = 0.0;
  for (std::size_t i = 0; i < state.size(); ++i) {
    const glm::dvec3 r = positionOf(state, i);
    innermost = std::min(innermost, glm::length(r));
    outermost = std::max(outermost, glm::length(r));
    const glm::dvec3 rigid = kShellAngularVelocity * glm::dvec3(-r.y, r.x, 0.0);
    ASSERT_LT(glm::length(velocityOf(state, i) - rigid), 1e-6) << "body " << i;
  }
  EXPECT_NEAR(innermost, kShellInnerRadius, 0.05);
  EXPECT_NEAR(outermost, kShellOuterRadius, 0.05);
  EXPECT_GT(diagnosticsOf(state).angularMomentum.z, 0.0);
}

// v = H r (kept exact by the move to the centre-of-mass frame) with H at the escape rate:
// 2T/|W| = 2, so the total energy is near zero (sampling: 1.96 to 2.04 at N = 2048).
TEST(Scenes, ExpandIsAHubbleFlowAtTheEscapeSpeed) {
  const State state = findScene("expand")->generate(4096, 2);
  for (std::size_t i = 0; i < state.size(); ++i)
    ASSERT_LT(glm::length(velocityOf(state, i) - kExpandRate * positionOf(state, i)), 1e-6) << i;
  EXPECT_NEAR(diagnosticsOf(state).virialRatio(), 2.0, 0.06);
}

// The time the relative orbit takes to come back to pericentre (the +x axis), integrated with rk4,
// against Kepler's third law: T = 2 pi sqrt(a^3 / G M) = 2 pi.
double measuredKeplerPeriod(double eccentricity) {
  SceneOptions options;
  options.eccentricity = eccentricity;
  CpuEngine engine(1);
  engine.upload(findScene("kepler")->generate(options));
  StepParams params = unsoftened();
  params.dt = test::kKeplerPeriod / 5000;
  const auto relativeY = [&] { return engine.positions()[1].y - engine.positions()[0].y; };
  double previous = relativeY();
  for (int step = 1; step <= 6000; ++step) {
    engine.step(*findMethod("rk4"), params);
    const double now = relativeY();
    if (step > 2500 && previous < 0.0 && now >= 0.0)  // past apocentre, crossing +x
      return params.dt * (step - 1 + previous / (previous - now));
    previous = now;
  }
  return 0.0;
}

TEST(Scenes, KeplerOrbitHasKeplersPeriod) {
  for (double e : {0.0, 0.5, 0.9})
    EXPECT_NEAR(measuredKeplerPeriod(e) / test::kKeplerPeriod, 1.0, 1e-3) << "e = " << e;
}

TEST(Scenes, KeplerStartsAtPericentreOfItsEccentricity) {
  SceneOptions options;
  options.eccentricity = 0.3;
  const State state = findScene("kepler")->generate(options);
  EXPECT_NEAR(glm::length(positionOf(state, 1) - positionOf(state, 0)), 0.7, 1e-7);
  EXPECT_NEAR(diagnosticsOf(state).total(), -0.125, 1e-6);  // -G m1 m2 / 2a
}

// After one period of the choreography the three bodies are back where they started; a third of
// a period moves each body to where the next one was (in some order).
TEST(Scenes, FigureEightComesBackAfterOnePeriod) {
  const State start = findScene("figure-eight")->generate(0, 0);
  CpuEngine engine(1);
  StepParams params = unsoftened();
  const int stepsPerThird = 2000;
  params.dt = kFigureEightPeriod / (3 * stepsPerThird);
  engine.upload(start);
  engine.step(*findMethod("rk4"), params, stepsPerThird);
  const State third = engine.download();
  for (std::size_t i = 0; i < 3; ++i) {
    double nearest = 1e9;
    for (std::size_t j = 0; j < 3; ++j)
      nearest = std::min(nearest, glm::length(positionOf(third, i) - positionOf(start, j)));
    EXPECT_LT(nearest, 1e-4) << "body " << i;
  }
  engine.step(*findMethod("rk4"), params, 2 * stepsPerThird);
  const auto d = test::compareStates(engine.download(), start);
  // The initial conditions carry 8 digits and the orbit is stable: they come back to ~3e-7.
  EXPECT_LT(d.maxPosition, 1e-5);
  EXPECT_LT(d.maxVelocity, 1e-5);
}

}  // namespace
}  // namespace nbody
