#pragma once
// Forces from outside the bodies: a fixed or moving background potential (a galaxy a cluster
// orbits in, a star planets orbit). An ordered list of analytic components, each -grad Phi of its
// own, summed in list order and added once to every body's acceleration from the other bodies.
// docs/potentials.md has the formulas, units and parameters of each; physics.md in the research
// notes has where they come from (galpy, gala, AGAMA).
//
// The text form (`--potential SPEC`) joins components with '+', each NAME:key=value,...:
//   point:mass=1,softening=0.01    plummer:mass=1,b=0.5      hernquist:mass=1,a=0.5
//   nfw:mass=1,a=2                  miyamoto-nagai:mass=1,a=3,b=0.28
//   logarithmic:v0=1,rc=0.1,q=0.9   power-cutoff:mass=1,alpha=1.8,rc=0.24
//   mw2014 or mw2014:length=8,velocity=220   (Bovy 2015's MWPotential2014, see below)
// Any component takes centre=x;y;z (where it is at time 0, default the origin) and may move:
// velocity=vx;vy;vz (uniform motion) and/or circle=R;omega;phase (a circle of radius R in the
// x-y plane about the moving centre, angle omega t + phase). A component's mass is its total mass
// except NFW's (the scale mass M_s: Phi = -G M_s ln(1 + r/a) / r) and the point mass's softening
// is Plummer's b by another name. Everything is in the run's units, with the run's G.
//
// mw2014: galpy's MWPotential2014 (a power-law bulge with cut-off, a Miyamoto-Nagai disk and an
// NFW halo, each giving a fixed share of the radial force at the Sun, where v_c = 220 km/s at
// 8 kpc). `length` is the run's length unit in kpc and `velocity` its velocity unit in km/s
// (defaults 8 and 220: galpy's natural units, where v_c(1) = 1 with G = 1); the masses follow from
// G = 4.30091727e-6 kpc (km/s)^2 / Msun and the run's G. The preset expands into its three
// components when parsed, and spec() prints those.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

namespace nbody {

enum class PotentialKind {
  point,
  plummer,
  hernquist,
  nfw,
  miyamotoNagai,
  logarithmic,
  powerCutoff
};

// Where a component's centre is at time t: position + velocity t + R (cos(omega t + phase),
// sin(omega t + phase), 0).
struct CentrePath {
  glm::dvec3 position{0.0};
  glm::dvec3 velocity{0.0};
  double circleRadius = 0.0, circleRate = 0.0, circlePhase = 0.0;

  glm::dvec3 at(double time) const;
  bool moves() const;
};

struct PotentialComponent {
  PotentialKind kind = PotentialKind::point;
  // In the run's units; which ones a kind reads is in the table at the top.
  double mass = 0.0;  // point, plummer, hernquist, nfw (scale mass), miyamoto-nagai, power-cutoff
  double a = 0.0;     // hernquist, nfw, miyamoto-nagai
  double b = 0.0;     // plummer, miyamoto-nagai; point: its softening
  double v0 = 0.0;    // logarithmic
  double rc = 0.0;    // logarithmic (core), power-cutoff (cut-off radius)
  double q = 1.0, p = 1.0;  // logarithmic: flattening of Phi in z and in y
  double alpha = 0.0;       // power-cutoff: rho ~ r^-alpha exp(-(r/rc)^2), 0 <= alpha < 2
  CentrePath centre;
};

// What the GPU kernels read of one component (shaders/external_potential.glsl): the kind, four
// float parameters precomputed in double, and the centre at the stage's time. Parameters: point
// and plummer (G M, b^2), hernquist (G M, a), nfw (G M, a, 1 / a), miyamoto-nagai (G M, a, b^2),
// logarithmic (v0^2, rc^2, 1 / p^2, 1 / q^2), power-cutoff (G M / rc^3, 1 / rc^2, s = 1.5 - alpha /
// 2, 1 / Gamma(s)).
struct GpuPotentialComponent {
  int kind = 0;
  glm::vec4 parameters{0.0f};
  glm::vec3 centre{0.0f};
};

inline constexpr int kMaxPotentialComponents = 8;

class ExternalPotential {
 public:
  // Throws std::invalid_argument (one line naming the component and key) for a bad spec: unknown
  // names or keys, a missing required key, a value that is not a finite number or out of range,
  // more than kMaxPotentialComponents components. `gravity` is the run's G (for presets).
  static ExternalPotential parse(std::string_view spec, double gravity = 1.0);

  // A text that parse() reads back to the same components, bit for bit (presets expanded).
  std::string spec() const;
  const std::vector<PotentialComponent>& components() const { return components_; }
  // The components' names joined by " + ", "(moving)" after those whose centre moves: for a panel.
  std::string summary() const;
  bool moves() const;

  // -grad Phi and Phi per unit mass at `position` and `time`, G = `gravity`; components summed in
  // list order. Phi is zero at infinity for every kind but the logarithmic one.
  glm::dvec3 acceleration(const glm::dvec3& position, double time, double gravity) const;
  double potential(const glm::dvec3& position, double time, double gravity) const;

  // The components for the GPU at `time`, G = `gravity`.
  std::vector<GpuPotentialComponent> gpuComponents(double time, double gravity) const;

  friend bool operator==(const ExternalPotential& a, const ExternalPotential& b) {
    return a.spec() == b.spec();
  }

 private:
  std::vector<PotentialComponent> components_;
};

using SharedPotential = std::shared_ptr<const ExternalPotential>;

}  // namespace nbody
