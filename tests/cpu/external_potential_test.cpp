// External potentials against references that share no code with them: galpy 1.8.1's
// MWPotential2014 (accelerations and rotation curve, research notes physics.md §1.3), minus the
// gradient of each potential by finite differences, closed forms (Kepler, Hernquist, NFW's peak,
// the flat logarithmic curve, Miyamoto-Nagai in the plane, the power-law bulge through erf and
// exp), moving centres, the text form read back bit for bit, and what the GPU is handed.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include <glm/geometric.hpp>

#include "physics/external_potential.h"

namespace nbody {
namespace {

constexpr double kEpsilon = 2.220446049250313e-16;

const PotentialComponent& onlyComponent(const ExternalPotential& potential) {
  EXPECT_EQ(potential.components().size(), 1u);
  return potential.components().front();
}

// The inward pull |a| of a potential at `position` (static, G as given).
double pull(const ExternalPotential& potential, const glm::dvec3& position, double gravity = 1.0) {
  return glm::length(potential.acceleration(position, 0.0, gravity));
}

double relative(double value, double reference) {
  return std::fabs(value - reference) / std::fabs(reference);
}

// ---- MWPotential2014 against galpy 1.8.1 (physics.md §1.3: natural units, G = 1) ----

struct GalpyAcceleration {
  glm::dvec3 position, acceleration;
};

const std::vector<GalpyAcceleration> kGalpyAccelerations = {
    {{1, 0, 0}, {-1.000000000000e+00, 0, 0}},
    {{0.5, 0.3, 0.1}, {-1.359226482957e+00, -8.155358897740e-01, -8.927149229304e-01}},
    {{2, -1, 0.5}, {-3.028274674352e-01, 1.514137337176e-01, -9.616328056494e-02}},
    {{0.05, 0.02, 0.01}, {-3.935270282062e+00, -1.574108112825e+00, -1.879581902360e+00}},
    {{5, 3, -3}, {-7.241326676051e-02, -4.344796005630e-02, 4.437672107116e-02}},
    {{0.001, 0, 0.3}, {-5.791161700910e-03, 0, -2.646492223196e+00}},
};

// Half a unit in the last of the 13 significant digits the table prints: the table's own
// rounding (up to 3.7e-13 of a vector's length), so the tightest test it allows.
double halfLastDigit(double printed) {
  if (printed == 0.0) return 1e-15;
  return 0.5e-12 * std::pow(10.0, std::floor(std::log10(std::fabs(printed)))) * (1.0 + 1e-9);
}

TEST(ExternalPotential, Mw2014MatchesGalpysAccelerationsToEveryPrintedDigit) {
  const ExternalPotential mw = ExternalPotential::parse("mw2014");
  for (const GalpyAcceleration& point : kGalpyAccelerations) {
    const glm::dvec3 a = mw.acceleration(point.position, 0.0, 1.0);
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(a[i], point.acceleration[i], halfLastDigit(point.acceleration[i]))
          << "at (" << point.position.x << ", " << point.position.y << ", " << point.position.z
          << ") axis " << i;
    EXPECT_LE(glm::length(a - point.acceleration), 4e-13 * glm::length(point.acceleration));
  }
}

TEST(ExternalPotential, Mw2014RotationCurveMatchesGalpy) {
  const ExternalPotential mw = ExternalPotential::parse("mw2014");
  const double radiusKpc[] = {0.5, 1, 2, 4, 8, 16, 30, 50, 100};
  const double speedKms[] = {110.806, 140.461, 187.003, 222.696, 220.000,
                             202.789, 188.527, 176.058, 155.384};
  for (int i = 0; i < 9; ++i) {
    const double x = radiusKpc[i] / 8.0;
    const double speed = std::sqrt(x * pull(mw, {x, 0, 0}));
    EXPECT_NEAR(220.0 * speed, speedKms[i], 5.0001e-4) << radiusKpc[i] << " kpc";
  }
  // v_c(R0) = 1 in natural units: the three shares (0.05, 0.60, 0.35) of the force add up to 1.
  EXPECT_NEAR(std::sqrt(pull(mw, {1, 0, 0})), 1.0, 1e-14);
}

// In kpc and km/s the masses are in solar masses: gala's BovyMWPotential2014 defaults.
TEST(ExternalPotential, Mw2014InKpcAndKmPerSecondHasGalasMassesAnd220AtTheSun) {
  const double gravity = 4.30091727e-6;  // kpc (km/s)^2 / Msun
  const ExternalPotential mw = ExternalPotential::parse("mw2014:length=1,velocity=1", gravity);
  ASSERT_EQ(mw.components().size(), 3u);
  EXPECT_EQ(mw.components()[0].kind, PotentialKind::powerCutoff);
  EXPECT_EQ(mw.components()[1].kind, PotentialKind::miyamotoNagai);
  EXPECT_EQ(mw.components()[2].kind, PotentialKind::nfw);
  EXPECT_LT(relative(mw.components()[0].mass, 4501365375.0), 1e-8);
  EXPECT_LT(relative(mw.components()[1].mass, 68193902782.0), 1e-8);
  EXPECT_LT(relative(mw.components()[2].mass, 4.3683325e11), 1e-7);
  EXPECT_DOUBLE_EQ(mw.components()[0].rc, 1.9);
  EXPECT_DOUBLE_EQ(mw.components()[1].a, 3.0);
  EXPECT_DOUBLE_EQ(mw.components()[1].b, 0.28);
  EXPECT_DOUBLE_EQ(mw.components()[2].a, 16.0);
  EXPECT_LT(relative(std::sqrt(8.0 * pull(mw, {8, 0, 0}, gravity)), 220.0), 1e-12);
}

// ---- Each kind: -grad Phi by finite differences, from 1e-6 to 100 of its scale ----

struct KindCase {
  std::string spec;
  double scale;  // its length scale: the radii tried are multiples of it
};

const glm::dvec3 kCentre(0.3, -0.2, 0.1);  // no coordinate 0: d = x - centre stays exact near it

std::vector<KindCase> everyKind() {
  const std::string at = ",centre=0.3;-0.2;0.1";
  return {{"point:mass=2" + at, 1.0},
          {"point:mass=2,softening=0.1" + at, 0.1},
          {"plummer:mass=1.5,b=0.7" + at, 0.7},
          {"hernquist:mass=2,a=0.5" + at, 0.5},
          {"nfw:mass=3,a=2" + at, 2.0},
          {"miyamoto-nagai:mass=1,a=0.6,b=0.2" + at, 0.8},
          {"miyamoto-nagai:mass=1,a=0,b=0.2" + at, 0.2},
          {"logarithmic:v0=1.3,rc=0.2,q=0.8,p=0.9" + at, 0.2},
          {"logarithmic:v0=1.3,q=0.7" + at, 1.0},
          {"power-cutoff:mass=1,alpha=1.8,rc=0.5" + at, 0.5},
          {"power-cutoff:mass=1,alpha=0.5,rc=0.5" + at, 0.5}};
}

// -grad Phi by central differences; the step is measured as the positions hold it.
glm::dvec3 minusGradient(const ExternalPotential& potential, const glm::dvec3& x, double h,
                         double& phiScale) {
  glm::dvec3 gradient;
  phiScale = 0.0;
  for (int i = 0; i < 3; ++i) {
    glm::dvec3 ahead = x, behind = x;
    ahead[i] += h, behind[i] -= h;
    const double phiAhead = potential.potential(ahead, 0.0, 1.3);
    const double phiBehind = potential.potential(behind, 0.0, 1.3);
    gradient[i] = -(phiAhead - phiBehind) / (ahead[i] - behind[i]);
    phiScale = std::max({phiScale, std::fabs(phiAhead), std::fabs(phiBehind)});
  }
  return gradient;
}

TEST(ExternalPotential, EveryAccelerationIsMinusTheGradientOfItsPotential) {
  const glm::dvec3 directions[] = {glm::normalize(glm::dvec3(1, 2, 3)),
                                   glm::normalize(glm::dvec3(-0.6, 0.1, 0.79)),
                                   glm::normalize(glm::dvec3(0.3, -0.9, -0.05))};
  for (const KindCase& kind : everyKind()) {
    const ExternalPotential potential = ExternalPotential::parse(kind.spec);
    const bool logarithmic = onlyComponent(potential).kind == PotentialKind::logarithmic;
    for (double radius : {1e-6, 1e-4, 1e-2, 0.3, 1.0, 3.0, 100.0}) {
      for (const glm::dvec3& direction : directions) {
        const glm::dvec3 x = kCentre + radius * kind.scale * direction;
        const double h = 1e-5 * radius * kind.scale;
        double phiScale = 0.0;
        const glm::dvec3 expected = minusGradient(potential, x, h, phiScale);
        // Phi's own rounding (a logarithm's is absolute: v0^2 eps) divided by the step: where Phi
        // is flat (a core) it, not 1e-8, bounds what differences can tell.
        if (logarithmic) phiScale += 1.3 * 1.3;
        const double rounding = 8.0 * kEpsilon * phiScale / h;
        const glm::dvec3 a = potential.acceleration(x, 0.0, 1.3);
        EXPECT_LE(glm::length(a - expected), 1e-8 * glm::length(a) + rounding)
            << kind.spec << " at r = " << radius << " scale";
      }
    }
  }
}

// Where finite differences cannot resolve a core, each kind's pull against its leading terms.
TEST(ExternalPotential, NearTheCentreEachPullTakesItsLimitingForm) {
  // In the plane (for Miyamoto-Nagai), 1e-6 from the centre: r as the position holds it (x - centre
  // is exact there; centre + 1e-6 direction is not).
  const glm::dvec3 x = kCentre + 1e-6 * glm::normalize(glm::dvec3(1, 2, 0));
  const double r = glm::length(x - kCentre);
  const auto pullAt = [&](const std::string& spec) {
    return pull(ExternalPotential::parse(spec + ",centre=0.3;-0.2;0.1"), x, 1.0);
  };
  EXPECT_LT(relative(pullAt("point:mass=2,softening=0.5"), 2.0 * r / 0.125), 1e-11);
  EXPECT_LT(relative(pullAt("plummer:mass=2,b=0.5"), 2.0 * r / 0.125), 1e-11);
  EXPECT_LT(relative(pullAt("hernquist:mass=2,a=0.5"),
                     2.0 / 0.25 * (1.0 - 2.0 * (r / 0.5) + 3.0 * (r / 0.5) * (r / 0.5))),
            1e-11);
  EXPECT_LT(relative(pullAt("miyamoto-nagai:mass=2,a=0.3,b=0.2"), 2.0 * r / 0.125), 1e-11);
  EXPECT_LT(relative(pullAt("logarithmic:v0=2,rc=0.5"), 4.0 * r / 0.25), 1e-11);
  // The bulge: M(r) = M X^s / Gamma(s + 1) (1 - s X / (s + 1)) for small X = r^2 / rc^2.
  const double s = 0.6, x2 = r * r / 0.25;
  const double enclosed = std::pow(x2, s) / std::tgamma(s + 1.0) * (1.0 - s * x2 / (s + 1.0));
  EXPECT_LT(relative(pullAt("power-cutoff:mass=1,alpha=1.8,rc=0.5"), enclosed / (r * r)), 1e-11);
}

// ---- Closed forms ----

TEST(ExternalPotential, PointMassAndHernquistCircularSpeedsFollowTheirClosedForms) {
  const ExternalPotential point = ExternalPotential::parse("point:mass=3");
  const ExternalPotential hernquist = ExternalPotential::parse("hernquist:mass=3,a=0.7");
  const double gravity = 0.5;
  for (double r : {1e-3, 0.1, 0.7, 2.0, 50.0}) {
    const glm::dvec3 x = r * glm::normalize(glm::dvec3(1, -1, 2));
    EXPECT_LT(relative(r * pull(point, x, gravity), gravity * 3.0 / r), 1e-14) << r;  // Kepler
    EXPECT_LT(relative(point.potential(x, 0.0, gravity), -gravity * 3.0 / r), 1e-14) << r;
    EXPECT_LT(
        relative(r * pull(hernquist, x, gravity), gravity * 3.0 * r / ((r + 0.7) * (r + 0.7))),
        1e-14)
        << r;
    EXPECT_LT(relative(hernquist.potential(x, 0.0, gravity), -gravity * 3.0 / (r + 0.7)), 1e-14);
  }
  EXPECT_EQ(point.acceleration(glm::dvec3(0.0), 0.0, 1.0), glm::dvec3(0.0));
  EXPECT_EQ(hernquist.acceleration(glm::dvec3(0.0), 0.0, 1.0), glm::dvec3(0.0));
}

TEST(ExternalPotential, NfwCircularSpeedPeaksWhereItShould) {
  const double mass = 3.0, a = 2.0;
  const ExternalPotential nfw = ExternalPotential::parse("nfw:mass=3,a=2");
  const auto speedSquared = [&](double u) { return u * a * pull(nfw, {0, u * a, 0}); };
  const double peak = speedSquared(2.16258);
  EXPECT_LT(relative(peak, 0.216217 * mass / a), 1e-5);
  EXPECT_LT(speedSquared(2.15), peak);
  EXPECT_LT(speedSquared(2.18), peak);
  EXPECT_EQ(nfw.potential(glm::dvec3(0.0), 0.0, 1.0), -mass / a);
  EXPECT_EQ(nfw.acceleration(glm::dvec3(0.0), 0.0, 1.0), glm::dvec3(0.0));
}

// mu(u) = ln(1 + u) - u / (1 + u) in double keeps only ~4 digits at u = 1e-6 (cancellation).
TEST(ExternalPotential, NfwEnclosedMassKeepsItsDigitsAtSmallRadii) {
  const double a = 2.0;
  const ExternalPotential nfw = ExternalPotential::parse("nfw:mass=1,a=2");
  for (double u : {1e-8, 1e-6, 1e-4}) {
    const double r = u * a;
    const double mu = pull(nfw, {r, 0, 0}) * r * r;  // G M_s mu(u) / r^2 with G M_s = 1
    EXPECT_LT(relative(mu, u * u / 2.0 - 2.0 * u * u * u / 3.0 + 0.75 * u * u * u * u), 1e-9) << u;
  }
}

TEST(ExternalPotential, LogarithmicCircularSpeedIsFlatWithoutACore) {
  const ExternalPotential flat = ExternalPotential::parse("logarithmic:v0=1.7");
  for (double r : {1e-5, 0.3, 1.0, 40.0}) {
    const glm::dvec3 x = r * glm::normalize(glm::dvec3(1, 3, 0));
    EXPECT_LT(relative(std::sqrt(r * pull(flat, x)), 1.7), 1e-14) << r;
  }
  EXPECT_EQ(flat.acceleration(glm::dvec3(0.0), 0.0, 1.0), glm::dvec3(0.0));
  // Flattened: the pull along z is the one along x over q^2 at the same m^2.
  const ExternalPotential flattened = ExternalPotential::parse("logarithmic:v0=1,rc=0.1,q=0.5");
  EXPECT_LT(relative(pull(flattened, {0, 0, 0.5}), 0.5 / 0.25 / (0.01 + 1.0)), 1e-14);
}

TEST(ExternalPotential, MiyamotoNagaiInPlaneForceFollowsItsFormula) {
  const double mass = 2.0, a = 3.0, b = 0.28, gravity = 1.5;
  const ExternalPotential disk = ExternalPotential::parse("miyamoto-nagai:mass=2,a=3,b=0.28");
  for (double radius : {0.01, 1.0, 3.0, 8.0, 100.0}) {
    const glm::dvec3 x = radius * glm::normalize(glm::dvec3(2, -1, 0));
    const double s2 = radius * radius + (a + b) * (a + b);
    const double speedSquared = gravity * mass * radius * radius / (s2 * std::sqrt(s2));
    EXPECT_LT(relative(radius * pull(disk, x, gravity), speedSquared), 1e-14) << radius;
    EXPECT_LT(relative(disk.potential(x, 0.0, gravity), -gravity * mass / std::sqrt(s2)), 1e-14);
  }
  // Above the plane: a_z = -G M z (a + zeta) / (zeta D^3).
  const double z = 0.5, zeta = std::sqrt(z * z + b * b);
  const double d2 = 1.0 + (a + zeta) * (a + zeta);
  const glm::dvec3 above = disk.acceleration({1, 0, z}, 0.0, gravity);
  EXPECT_LT(relative(above.z, -gravity * mass * z * (a + zeta) / (zeta * d2 * std::sqrt(d2))),
            1e-14);
}

// ---- The power-law bulge with cut-off: P(s, x) and Q through identities with erf and exp ----

// G M(r) = |a| r^2 of a power-cutoff component of mass 1 (G = 1) with cut-off radius 0.5.
double enclosedMass(const ExternalPotential& bulge, double r) {
  return pull(bulge, r * glm::normalize(glm::dvec3(1, 1, 1))) * r * r;
}

// (1/Gamma(s)) int_0^X t^(s-1) e^-t dt by composite Simpson on t = w^k, k = 3/s, which makes the
// integrand k w^2 exp(-w^k): smooth, so Simpson converges as h^4.
double gammaPBySimpson(double s, double x2) {
  const double k = 3.0 / s, top = std::pow(x2, 1.0 / k);
  const int intervals = 20000;
  const double h = top / intervals;
  const auto f = [&](double w) { return k * w * w * std::exp(-std::pow(w, k)); };
  double sum = f(0.0) + f(top);
  for (int i = 1; i < intervals; ++i) sum += (i % 2 == 1 ? 4.0 : 2.0) * f(i * h);
  return sum * h / 3.0 / std::tgamma(s);
}

TEST(ExternalPotential, PowerCutoffEnclosedMassFollowsTheIncompleteGammaFunction) {
  const double rc = 0.5;
  // alpha = 0: s = 3/2, P(3/2, x^2) = erf(x) - 2 x e^(-x^2) / sqrt(pi).
  const ExternalPotential gaussian = ExternalPotential::parse("power-cutoff:mass=1,alpha=0,rc=0.5");
  for (double x : {0.3, 0.8, 1.2, 1.58, 1.59, 2.0, 3.5, 5.0}) {
    const double expected = std::erf(x) - 2.0 * x * std::exp(-x * x) / std::sqrt(std::numbers::pi);
    EXPECT_LT(relative(enclosedMass(gaussian, x * rc), expected), 1e-13) << x;
  }
  // alpha = 1: s = 1, P(1, X) = 1 - e^-X.
  const ExternalPotential exponential =
      ExternalPotential::parse("power-cutoff:mass=1,alpha=1,rc=0.5");
  for (double x2 : {1e-6, 0.01, 0.5, 1.9, 2.1, 5.0, 30.0})
    EXPECT_LT(relative(enclosedMass(exponential, std::sqrt(x2) * rc), -std::expm1(-x2)), 1e-14)
        << x2;
  // alpha = 1.8 (MWPotential2014's bulge): s = 0.6 by quadrature.
  const ExternalPotential bulge = ExternalPotential::parse("power-cutoff:mass=1,alpha=1.8,rc=0.5");
  for (double x2 : {1e-4, 0.3, 1.5, 1.7, 4.0, 20.0})
    EXPECT_LT(relative(enclosedMass(bulge, std::sqrt(x2) * rc), gammaPBySimpson(0.6, x2)), 1e-11)
        << x2;
  // All the mass is inside 20 rc.
  EXPECT_LT(relative(enclosedMass(bulge, 20.0 * rc), 1.0), 1e-12);
}

TEST(ExternalPotential, PowerCutoffPotentialFollowsClosedFormsAndVanishesAtInfinity) {
  const double rc = 0.5, gravity = 2.0, pi = std::numbers::pi;
  // alpha = 0: a Gaussian density, Phi = -G M erf(r/rc) / r.
  const ExternalPotential gaussian = ExternalPotential::parse("power-cutoff:mass=3,alpha=0,rc=0.5");
  // alpha = 1: Phi = -G M [(1 - e^-X) / r + sqrt(pi) erfc(r/rc) / rc].
  const ExternalPotential exponential =
      ExternalPotential::parse("power-cutoff:mass=3,alpha=1,rc=0.5");
  for (double x : {0.01, 0.5, 1.2, 1.6, 3.0, 6.0}) {
    const glm::dvec3 position(0, x * rc, 0);
    const double r = x * rc;
    EXPECT_LT(relative(gaussian.potential(position, 0.0, gravity), -6.0 * std::erf(x) / r), 1e-13)
        << x;
    const double expected = -6.0 * (-std::expm1(-x * x) / r + std::sqrt(pi) * std::erfc(x) / rc);
    EXPECT_LT(relative(exponential.potential(position, 0.0, gravity), expected), 1e-13) << x;
  }
  // At the centre: -G M Gamma(1 - alpha/2) / (rc Gamma(3/2 - alpha/2)).
  const ExternalPotential bulge = ExternalPotential::parse("power-cutoff:mass=3,alpha=1.8,rc=0.5");
  EXPECT_LT(relative(bulge.potential(glm::dvec3(0.0), 0.0, gravity),
                     -6.0 * std::tgamma(0.1) / (rc * std::tgamma(0.6))),
            1e-14);
  EXPECT_LT(relative(gaussian.potential(glm::dvec3(0.0), 0.0, gravity),
                     -6.0 * 2.0 / (std::sqrt(pi) * rc)),
            1e-14);
  // Far out it is a point mass's (zero at infinity, not galpy's constant offset).
  EXPECT_LT(relative(bulge.potential({0, 0, 50.0 * rc}, 0.0, gravity), -6.0 / (50.0 * rc)), 1e-10);
}

// P(0.6, X) switches from its series to its continued fraction at X = 1.6, Q(0.1, X) (in Phi) at
// X = 1.1: the two sides must meet.
TEST(ExternalPotential, PowerCutoffIsContinuousWhereTheGammaFunctionSwitchesMethod) {
  const double rc = 0.5;
  const ExternalPotential bulge = ExternalPotential::parse("power-cutoff:mass=1,alpha=1.8,rc=0.5");
  for (double x2 : {1.6, 1.1}) {
    const glm::dvec3 below(rc * std::sqrt(x2 * (1.0 - 1e-14)), 0, 0);
    const glm::dvec3 above(rc * std::sqrt(x2 * (1.0 + 1e-14)), 0, 0);
    EXPECT_LT(relative(bulge.potential(above, 0.0, 1.0), bulge.potential(below, 0.0, 1.0)), 1e-13)
        << x2;
    EXPECT_LT(relative(pull(bulge, above), pull(bulge, below)), 1e-13) << x2;
  }
}

// ---- Moving centres ----

TEST(ExternalPotential, CentresMoveUniformlyAndOnCircles) {
  CentrePath path;
  path.position = {1, 2, 3};
  EXPECT_FALSE(path.moves());
  EXPECT_EQ(path.at(5.0), glm::dvec3(1, 2, 3));
  path.velocity = {0.5, -1, 0.25};
  EXPECT_TRUE(path.moves());
  EXPECT_EQ(path.at(2.0), glm::dvec3(2, 0, 3.5));
  path.velocity = glm::dvec3(0.0);
  path.circleRadius = 2.0, path.circlePhase = std::numbers::pi / 2;
  EXPECT_FALSE(path.moves()) << "a circle at rate 0 is a fixed offset";
  path.circleRate = std::numbers::pi / 4;
  EXPECT_TRUE(path.moves());
  // At t = 2 the angle is pi: the centre sits at -R along x.
  const glm::dvec3 there = path.at(2.0);
  EXPECT_NEAR(there.x, 1.0 - 2.0, 1e-15);
  EXPECT_NEAR(there.y, 2.0, 1e-15);
  EXPECT_EQ(there.z, 3.0);
}

TEST(ExternalPotential, AMovingComponentPullsAsTheStaticOneAtTheShiftedPosition) {
  const ExternalPotential moving = ExternalPotential::parse(
      "hernquist:mass=2,a=0.5,centre=1;0;0,velocity=0.5;-1;2+"
      "nfw:mass=1,a=1,circle=3;0.7;0.2");
  const ExternalPotential shifted = ExternalPotential::parse("hernquist:mass=2,a=0.5,centre=1;0;0");
  EXPECT_TRUE(moving.moves());
  EXPECT_FALSE(shifted.moves());
  const double t = 3.0;
  const glm::dvec3 x(0.4, 2.0, -1.0), v(0.5, -1, 2);
  const double angle = 0.7 * t + 0.2;
  const ExternalPotential circling = ExternalPotential::parse("nfw:mass=1,a=1");
  const glm::dvec3 circleCentre = 3.0 * glm::dvec3(std::cos(angle), std::sin(angle), 0.0);
  const glm::dvec3 expected =
      shifted.acceleration(x - v * t, 0.0, 1.0) + circling.acceleration(x - circleCentre, 0.0, 1.0);
  EXPECT_LE(glm::length(moving.acceleration(x, t, 1.0) - expected), 1e-14 * glm::length(expected));
  const double phi =
      shifted.potential(x - v * t, 0.0, 1.0) + circling.potential(x - circleCentre, 0.0, 1.0);
  EXPECT_LT(relative(moving.potential(x, t, 1.0), phi), 1e-14);
}

// ---- The text form ----

bool sameBits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

bool sameBits(const glm::dvec3& a, const glm::dvec3& b) {
  return sameBits(a.x, b.x) && sameBits(a.y, b.y) && sameBits(a.z, b.z);
}

void expectSameBits(const ExternalPotential& a, const ExternalPotential& b) {
  ASSERT_EQ(a.components().size(), b.components().size());
  for (std::size_t i = 0; i < a.components().size(); ++i) {
    const PotentialComponent &x = a.components()[i], &y = b.components()[i];
    EXPECT_EQ(x.kind, y.kind) << i;
    for (double PotentialComponent::*field :
         {&PotentialComponent::mass, &PotentialComponent::a, &PotentialComponent::b,
          &PotentialComponent::v0, &PotentialComponent::rc, &PotentialComponent::q,
          &PotentialComponent::p, &PotentialComponent::alpha})
      EXPECT_TRUE(sameBits(x.*field, y.*field)) << "component " << i;
    EXPECT_TRUE(sameBits(x.centre.position, y.centre.position)) << i;
    EXPECT_TRUE(sameBits(x.centre.velocity, y.centre.velocity)) << i;
    EXPECT_TRUE(sameBits(x.centre.circleRadius, y.centre.circleRadius) &&
                sameBits(x.centre.circleRate, y.centre.circleRate) &&
                sameBits(x.centre.circlePhase, y.centre.circlePhase))
        << i;
  }
}

TEST(ExternalPotentialSpec, ReadsBackBitForBit) {
  const ExternalPotential potential = ExternalPotential::parse(
      "point:mass=0.1,softening=0.01,centre=1;2;3 + plummer:mass=1,b=0.3333333333333333,"
      "velocity=0.1;0;-0.3+hernquist:a=0.3,mass=1e+5+nfw:mass=2,a=3,circle=4;0.1;1,centre=-1e-7;0;2"
      "+miyamoto-nagai:mass=1,a=3,b=0.28+logarithmic:v0=1,rc=0.1,q=0.9,p=0.8"
      "+power-cutoff:mass=1e300,alpha=1.8,rc=0.2375");
  ASSERT_EQ(potential.components().size(), 7u);
  const ExternalPotential again = ExternalPotential::parse(potential.spec());
  expectSameBits(potential, again);
  EXPECT_EQ(again.spec(), potential.spec());
  EXPECT_TRUE(potential == again);
  // Canonical: the table's order of keys, every parameter, no centre, velocity or circle at 0.
  EXPECT_EQ(ExternalPotential::parse("hernquist:a=0.5,mass=2").spec(), "hernquist:mass=2,a=0.5");
  EXPECT_EQ(ExternalPotential::parse("logarithmic:v0=2").spec(), "logarithmic:v0=2,rc=0,q=1,p=1");
  EXPECT_EQ(ExternalPotential::parse("point:mass=1,centre=0;0;0").spec(),
            "point:mass=1,softening=0");
}

TEST(ExternalPotentialSpec, Mw2014ReadsBackExpandedBitForBit) {
  const double gravity = 4.30091727e-6;
  const ExternalPotential mw = ExternalPotential::parse("mw2014:length=1,velocity=1", gravity);
  const ExternalPotential again = ExternalPotential::parse(mw.spec(), gravity);
  expectSameBits(mw, again);
  EXPECT_EQ(mw.spec().find("mw2014"), std::string::npos) << mw.spec();
  EXPECT_LT(relative(std::sqrt(8.0 * pull(again, {8, 0, 0}, gravity)), 220.0), 1e-12);
  expectSameBits(ExternalPotential::parse("mw2014"),
                 ExternalPotential::parse("mw2014:velocity=220,length=8"));
}

TEST(ExternalPotentialSpec, ReadsExponentsWithSigns) {
  const ExternalPotential potential =
      ExternalPotential::parse("point:mass=1e+5+plummer:mass=2.5E-3,b=1E+0+nfw:mass=3.e+2,a=4e0");
  ASSERT_EQ(potential.components().size(), 3u);
  EXPECT_EQ(potential.components()[0].mass, 1e5);
  EXPECT_EQ(potential.components()[1].mass, 2.5e-3);
  EXPECT_EQ(potential.components()[1].b, 1.0);
  EXPECT_EQ(potential.components()[2].mass, 300.0);
  EXPECT_EQ(potential.components()[2].a, 4.0);
  // A huge mass prints with an exponent ("1e+300") and still reads back as one component.
  const ExternalPotential huge = ExternalPotential::parse("point:mass=1e300+point:mass=1");
  EXPECT_EQ(ExternalPotential::parse(huge.spec()).components().size(), 2u);
}

TEST(ExternalPotentialSpec, ZeroMassAndAFlatDiskAreAllowed) {
  EXPECT_EQ(onlyComponent(ExternalPotential::parse("point:mass=0")).mass, 0.0);
  EXPECT_EQ(onlyComponent(ExternalPotential::parse("miyamoto-nagai:mass=1,a=0,b=0.1")).a, 0.0);
  // mw2014 counts as three of the eight.
  const std::string eight =
      "point:mass=1+point:mass=1+point:mass=1+point:mass=1+point:mass=1+mw2014";
  EXPECT_EQ(ExternalPotential::parse(eight).components().size(), 8u);
}

struct BadSpec {
  std::string spec;
  std::vector<std::string> named;  // what the message must name
};

TEST(ExternalPotentialSpec, EveryBadSpecIsRefusedInOneLineNamingWhatIsWrong) {
  std::string nine;
  for (int i = 0; i < 9; ++i) nine.append(i ? "+" : "").append("point:mass=1");
  const std::vector<BadSpec> bad = {
      {"foo:mass=1", {"unknown component \"foo\"", "point", "power-cutoff", "mw2014"}},
      {"hernquist:mass=1,a=1,c=2",
       {"hernquist: unknown key \"c\" (keys: mass, a, centre, velocity, circle)"}},
      {"nfw:mass=1", {"nfw needs a"}},
      {"point", {"point needs mass"}},
      {"logarithmic:rc=1", {"logarithmic needs v0"}},
      {"power-cutoff:mass=1,alpha=1", {"power-cutoff needs rc"}},
      {"plummer:mass=1x,b=1", {"plummer: mass", "1x", "not a number"}},
      {"plummer:mass=1,b=nan", {"plummer: b", "nan"}},
      {"point:mass=inf", {"point: mass", "inf"}},
      {"point:mass=0x10", {"point: mass", "0x10"}},
      {"point:mass=-1", {"point: mass must be >= 0"}},
      {"point:mass=1,softening=-0.1", {"point: softening must be >= 0"}},
      {"hernquist:mass=1,a=-1", {"hernquist: a must be > 0"}},
      {"miyamoto-nagai:mass=1,a=-1,b=1", {"miyamoto-nagai: a must be >= 0"}},
      {"miyamoto-nagai:mass=1,a=1,b=0", {"miyamoto-nagai: b must be > 0"}},
      {"logarithmic:v0=1,q=0", {"logarithmic: q must be > 0"}},
      {"logarithmic:v0=1,rc=-1", {"logarithmic: rc must be >= 0"}},
      {"power-cutoff:mass=1,alpha=2,rc=1", {"power-cutoff: alpha must be in [0, 2)"}},
      {"power-cutoff:mass=1,alpha=-0.1,rc=1", {"power-cutoff: alpha must be in [0, 2)"}},
      {"nfw:mass=1,a=1,a=2", {"nfw: key \"a\" given twice"}},
      {"nfw:mass=1,a", {"nfw: \"a\" is not key=value"}},
      {"nfw:", {"nfw: an empty key=value item"}},
      {"", {"no components"}},
      {"  ", {"no components"}},
      {"point:mass=1++nfw:mass=1,a=1", {"component 2 is empty"}},
      {"point:mass=1+", {"component 2 is empty"}},
      {nine, {"more than 8 components"}},
      {"mw2014+mw2014+mw2014", {"more than 8 components"}},
      {"mw2014:centre=1;2;3", {"mw2014: unknown key \"centre\" (keys: length, velocity"}},
      {"mw2014:length=0", {"mw2014: length must be > 0"}},
      {"point:mass=1,centre=1;2", {"point: centre needs three numbers"}},
      {"point:mass=1,velocity=1;2;x", {"point: velocity", "'x'"}},
      {"point:mass=1,circle=1;nan;0", {"point: circle", "nan"}},
      {"point:mass=1x\nfoo", {"point: mass", "\\x0a"}},
  };
  for (const BadSpec& b : bad) {
    try {
      ExternalPotential::parse(b.spec);
      ADD_FAILURE() << "accepted: " << b.spec;
    } catch (const std::invalid_argument& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      EXPECT_TRUE(message.starts_with("--potential: ")) << message;
      for (const std::string& name : b.named)
        EXPECT_NE(message.find(name), std::string::npos) << message << "\n  lacks: " << name;
    }
  }
  EXPECT_THROW(ExternalPotential::parse("mw2014", 0.0), std::invalid_argument);
}

// ---- What the GPU is handed ----

TEST(ExternalPotential, GpuComponentsCarryTheDocumentedParameters) {
  const ExternalPotential potential = ExternalPotential::parse(
      "point:mass=2,softening=0.1,velocity=1;2;3+plummer:mass=3,b=0.5+hernquist:mass=4,a=0.7"
      "+nfw:mass=5,a=2+miyamoto-nagai:mass=6,a=3,b=0.28+logarithmic:v0=1.5,rc=0.2,q=0.9,p=0.8"
      "+power-cutoff:mass=7,alpha=1.8,rc=0.25,circle=2;0.5;0.1,centre=1;0;-1");
  const double gravity = 2.5, t = 1.5;
  const std::vector<GpuPotentialComponent> gpu = potential.gpuComponents(t, gravity);
  ASSERT_EQ(gpu.size(), 7u);
  // The shader's numbering of the kinds.
  for (int i = 0; i < 7; ++i) EXPECT_EQ(gpu[i].kind, i);
  const auto expectParameters = [](const GpuPotentialComponent& c, glm::dvec4 expected) {
    for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(c.parameters[i], float(expected[i])) << c.kind;
  };
  expectParameters(gpu[0], {gravity * 2, 0.01, 0, 0});
  expectParameters(gpu[1], {gravity * 3, 0.25, 0, 0});
  expectParameters(gpu[2], {gravity * 4, 0.7, 0, 0});
  expectParameters(gpu[3], {gravity * 5, 2, 0.5, 0});
  expectParameters(gpu[4], {gravity * 6, 3, 0.28 * 0.28, 0});
  expectParameters(gpu[5], {2.25, 0.04, 1 / 0.64, 1 / 0.81});
  const double s = 1.5 - 0.9;
  expectParameters(gpu[6], {gravity * 7 * 64, 16, s, 1 / std::tgamma(s)});  // G M / rc^3
  // Centres at time t: uniform motion, and a circle of radius 2 at angle 0.5 t + 0.1.
  EXPECT_EQ(gpu[0].centre, glm::vec3(1.5f, 3.0f, 4.5f));
  EXPECT_EQ(gpu[1].centre, glm::vec3(0.0f));
  const double angle = 0.5 * t + 0.1;
  EXPECT_FLOAT_EQ(gpu[6].centre.x, float(1.0 + 2.0 * std::cos(angle)));
  EXPECT_FLOAT_EQ(gpu[6].centre.y, float(2.0 * std::sin(angle)));
  EXPECT_FLOAT_EQ(gpu[6].centre.z, -1.0f);
}

}  // namespace
}  // namespace nbody
