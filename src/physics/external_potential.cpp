#include "physics/external_potential.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

#include <glm/geometric.hpp>

#include "util/comma_list.h"
#include "util/named_table.h"
#include "util/number_text.h"
#include "util/printable_text.h"
#include "util/std_compat.h"

namespace nbody {
namespace {

constexpr double kEpsilon = std::numeric_limits<double>::epsilon();

// ---- Special functions (double; the standard library has no incomplete gamma function) ----

// x^a e^-x / Gamma(a), the factor in front of both expansions of the incomplete gamma function.
// pow and exp each keep their relative accuracy at any size, unlike exp(a ln x - x - lgamma(a)),
// whose argument loses |a ln x| + x ulps.
double gammaPrefactor(double a, double x) { return std::pow(x, a) * std::exp(-x) / std::tgamma(a); }

// P(a, x) by its series, for 0 < x < a + 1 (Numerical Recipes' gser): converges fast there.
double gammaPSeries(double a, double x) {
  double term = 1.0 / a, sum = term;
  for (int n = 1; n < 1000; ++n) {
    term *= x / (a + n);
    sum += term;
    if (std::fabs(term) < std::fabs(sum) * kEpsilon * 0.25) break;
  }
  return sum * gammaPrefactor(a, x);
}

// Q(a, x) by its continued fraction with the modified Lentz method, for x >= a + 1 (Numerical
// Recipes' gcf): where the series would need many terms and cancel.
double gammaQFraction(double a, double x) {
  constexpr double kTiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / kTiny, d = 1.0 / b, fraction = d;
  for (int i = 1; i < 1000; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double step = d * c;
    fraction *= step;
    if (std::fabs(step - 1.0) <= kEpsilon) break;
  }
  return fraction * gammaPrefactor(a, x);
}

// Beyond this x, Q(a, x) < x^a e^-x is below every double that matters next to P = 1 (and pow
// could overflow while exp underflows).
constexpr double kGammaTail = 700.0;

// The regularised lower incomplete gamma function P(a, x), a > 0, x >= 0.
double gammaP(double a, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= kGammaTail) return 1.0;
  return x < a + 1.0 ? gammaPSeries(a, x) : 1.0 - gammaQFraction(a, x);
}

// The regularised upper incomplete gamma function Q(a, x) = 1 - P(a, x).
double gammaQ(double a, double x) {
  if (x <= 0.0) return 1.0;
  if (x >= kGammaTail) return 0.0;
  return x < a + 1.0 ? 1.0 - gammaPSeries(a, x) : gammaQFraction(a, x);
}

// NFW's mu(u) / u^2, mu(u) = ln(1 + u) - u / (1 + u). Below u = 1 the direct form cancels (at
// u = 1e-6 it keeps 4 digits), so there it is the series mu = 2 sum_{n>=2} c_n s^n in
// s = u / (2 + u), c_n = 1 for even n and -(n - 1) / n for odd n, whose terms shrink by s < 1/3.
double nfwMuOverUSquared(double u) {
  if (u >= 1.0) return (std::log1p(u) - u / (1.0 + u)) / (u * u);
  const double s = u / (2.0 + u);
  double sum = 0.0, power = 1.0;  // power = s^(n - 2)
  for (int n = 2; power > 0.25 * kEpsilon; ++n, power *= s)
    sum += (n % 2 == 0 ? 1.0 : -double(n - 1) / n) * power;
  return 2.0 * sum / ((2.0 + u) * (2.0 + u));
}

// ---- Each kind's acceleration and potential at d = position - centre ----

// The power-law bulge's shape parameter s = 3/2 - alpha/2 (M(r) = M P(s, r^2/rc^2)).
double cutoffShape(const PotentialComponent& c) { return 1.5 - 0.5 * c.alpha; }

// The power-law bulge's potential at the centre, -G M Gamma(1 - alpha/2) / (rc Gamma(s)), times
// Q(1 - alpha/2, X): the part of Phi from the mass outside r.
double cutoffOuterPotential(const PotentialComponent& c, double x2, double gravity) {
  const double s = cutoffShape(c), outer = s - 0.5;
  return -gravity * c.mass * std::tgamma(outer) * gammaQ(outer, x2) / (c.rc * std::tgamma(s));
}

// The magnitude of -grad Phi of a spherical kind at radius r > 0 (pointing inwards).
double sphericalPull(const PotentialComponent& c, double r, double gravity) {
  const double gm = gravity * c.mass;
  switch (c.kind) {
    case PotentialKind::point:
    case PotentialKind::plummer: {
      const double r2 = r * r + c.b * c.b;  // the point's softening is stored in b
      return gm * r / (r2 * std::sqrt(r2));
    }
    case PotentialKind::hernquist:
      return gm / ((r + c.a) * (r + c.a));
    case PotentialKind::nfw:
      return gm * nfwMuOverUSquared(r / c.a) / (c.a * c.a);
    case PotentialKind::powerCutoff:
      return gm * gammaP(cutoffShape(c), r * r / (c.rc * c.rc)) / (r * r);
    default:
      return 0.0;
  }
}

glm::dvec3 miyamotoNagaiAcceleration(const PotentialComponent& c, const glm::dvec3& d,
                                     double gravity) {
  const double zeta = std::sqrt(d.z * d.z + c.b * c.b);
  const double d2 = d.x * d.x + d.y * d.y + (c.a + zeta) * (c.a + zeta);
  const double pull = gravity * c.mass / (d2 * std::sqrt(d2));
  return -pull * glm::dvec3(d.x, d.y, d.z * (c.a + zeta) / zeta);
}

glm::dvec3 logarithmicAcceleration(const PotentialComponent& c, const glm::dvec3& d) {
  const glm::dvec3 scaled(d.x, d.y / (c.p * c.p), d.z / (c.q * c.q));
  const double m2 = c.rc * c.rc + glm::dot(d, scaled);
  if (m2 == 0.0) return glm::dvec3(0.0);  // rc = 0 at the centre: no direction
  return -c.v0 * c.v0 / m2 * scaled;
}

glm::dvec3 componentAcceleration(const PotentialComponent& c, const glm::dvec3& d, double gravity) {
  if (c.kind == PotentialKind::miyamotoNagai) return miyamotoNagaiAcceleration(c, d, gravity);
  if (c.kind == PotentialKind::logarithmic) return logarithmicAcceleration(c, d);
  const double r = glm::length(d);
  if (r == 0.0) return glm::dvec3(0.0);  // the spherical kinds: no direction at the centre
  return -sphericalPull(c, r, gravity) / r * d;
}

// Phi of a component at d; -infinity at the centre of an unsoftened point mass and of a
// logarithmic potential without a core (where the acceleration is returned as 0 instead).
double componentPotential(const PotentialComponent& c, const glm::dvec3& d, double gravity) {
  const double gm = gravity * c.mass, r = glm::length(d);
  switch (c.kind) {
    case PotentialKind::point:
    case PotentialKind::plummer:
      return -gm / std::sqrt(r * r + c.b * c.b);
    case PotentialKind::hernquist:
      return -gm / (r + c.a);
    case PotentialKind::nfw: {
      const double u = r / c.a;
      return -gm / c.a * (u == 0.0 ? 1.0 : std::log1p(u) / u);
    }
    case PotentialKind::miyamotoNagai: {
      const double zeta = std::sqrt(d.z * d.z + c.b * c.b);
      return -gm / std::sqrt(d.x * d.x + d.y * d.y + (c.a + zeta) * (c.a + zeta));
    }
    case PotentialKind::logarithmic: {
      const glm::dvec3 scaled(d.x, d.y / (c.p * c.p), d.z / (c.q * c.q));
      return 0.5 * c.v0 * c.v0 * std::log(c.rc * c.rc + glm::dot(d, scaled));
    }
    case PotentialKind::powerCutoff: {
      const double x2 = r * r / (c.rc * c.rc);
      const double inner = r == 0.0 ? 0.0 : -gm * gammaP(cutoffShape(c), x2) / r;
      return inner + cutoffOuterPotential(c, x2, gravity);
    }
  }
  return 0.0;
}

// ---- The table of kinds that drives the parser and spec() ----

// What a number may be: finite, within `bounds`, and below bounds.high when highExcluded.
struct Range {
  NumberBounds bounds;
  bool highExcluded = false;
};

struct NumberKey {
  const char* name;
  double PotentialComponent::*field;
  Range range;
  bool required;
};

struct ComponentKind {
  const char* name;
  PotentialKind kind;
  std::vector<NumberKey> keys;
};

const std::vector<ComponentKind>& componentKinds() {
  using C = PotentialComponent;
  const Range positiveValue{positive()}, nonNegativeValue{nonNegative()};
  static const std::vector<ComponentKind> kinds = {
      {"point",
       PotentialKind::point,
       {{"mass", &C::mass, nonNegativeValue, true}, {"softening", &C::b, nonNegativeValue, false}}},
      {"plummer",
       PotentialKind::plummer,
       {{"mass", &C::mass, nonNegativeValue, true}, {"b", &C::b, positiveValue, true}}},
      {"hernquist",
       PotentialKind::hernquist,
       {{"mass", &C::mass, nonNegativeValue, true}, {"a", &C::a, positiveValue, true}}},
      {"nfw",
       PotentialKind::nfw,
       {{"mass", &C::mass, nonNegativeValue, true}, {"a", &C::a, positiveValue, true}}},
      {"miyamoto-nagai",
       PotentialKind::miyamotoNagai,
       {{"mass", &C::mass, nonNegativeValue, true},
        {"a", &C::a, nonNegativeValue, true},
        {"b", &C::b, positiveValue, true}}},
      {"logarithmic",
       PotentialKind::logarithmic,
       {{"v0", &C::v0, positiveValue, true},
        {"rc", &C::rc, nonNegativeValue, false},
        {"q", &C::q, positiveValue, false},
        {"p", &C::p, positiveValue, false}}},
      {"power-cutoff",
       PotentialKind::powerCutoff,
       {{"mass", &C::mass, nonNegativeValue, true},
        {"alpha", &C::alpha, {within(0.0, 2.0), true}, true},
        {"rc", &C::rc, positiveValue, true}}},
  };
  return kinds;
}

const ComponentKind& kindOf(PotentialKind kind) {
  for (const ComponentKind& entry : componentKinds())
    if (entry.kind == kind) return entry;
  throw std::logic_error("external potential: a kind missing from the table");
}

constexpr const char* kPresetName = "mw2014";
// The keys every kind takes for where its centre is and how it moves (CentrePath).
const std::vector<std::string> kPathKeys = {"centre", "velocity", "circle"};

std::vector<std::string> componentNames() {
  std::vector<std::string> names = namesOf(componentKinds());
  names.push_back(kPresetName);
  return names;
}

// ---- Reading the text ----

[[noreturn]] void fail(const std::string& message) {
  throw std::invalid_argument("--potential: " + message);
}

// "key", as the messages show a typed name. Appended piece by piece: GCC 12 warns falsely
// (-Wrestrict) on "\"" + std::string.
std::string shownKey(std::string_view key) {
  return std::string(1, '"').append(printable(key, 40)).append(1, '"');
}

// The components of `spec` between '+'s, except the '+' of an exponent ("1e+5": a '+' after an
// 'e' or 'E' that follows a digit or a point).
std::vector<std::string_view> componentTexts(std::string_view spec) {
  std::vector<std::string_view> texts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= spec.size(); ++i) {
    if (i < spec.size() && spec[i] != '+') continue;
    const bool exponent =
        i < spec.size() && i >= 2 && (spec[i - 1] == 'e' || spec[i - 1] == 'E') &&
        (std::isdigit(static_cast<unsigned char>(spec[i - 2])) || spec[i - 2] == '.');
    if (exponent) continue;
    texts.push_back(trimmed(spec.substr(start, i - start)));
    start = i + 1;
  }
  return texts;
}

using KeyValues = std::vector<std::pair<std::string_view, std::string_view>>;

// The key=value items of one component (`text` is what follows its ':'), each key one of `keys`
// and given once; `note` ends the list of keys in the message for an unknown one.
KeyValues keyValues(std::string_view component, std::string_view text,
                    const std::vector<std::string>& keys, std::string_view note = {}) {
  KeyValues values;
  for (std::string_view item : commaSeparated(text)) {
    const std::size_t equals = item.find('=');
    if (trimmed(item).empty())
      fail(std::string(component) + ": an empty key=value item (a ',' too many?)");
    if (equals == std::string_view::npos)
      fail(std::string(component) + ": " + shownKey(trimmed(item)) + " is not key=value");
    const std::string_view key = trimmed(item.substr(0, equals));
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      fail(std::string(component) + ": unknown key " + shownKey(key) +
           " (keys: " + joined(keys, ", ") + std::string(note) + ")");
    for (const auto& [seen, value] : values)
      if (seen == key) fail(std::string(component) + ": key " + shownKey(key) + " given twice");
    values.emplace_back(key, trimmed(item.substr(equals + 1)));
  }
  return values;
}

const std::string_view* valueOf(const KeyValues& values, std::string_view key) {
  for (const auto& [name, value] : values)
    if (name == key) return &value;
  return nullptr;
}

// `text` as a finite double in `range`, or a message naming the component and key.
double readValue(std::string_view component, std::string_view key, std::string_view text,
                 const Range& range) {
  double value = 0.0;
  // readNumber's bounds include their top; a range open at the top is checked here instead.
  std::string complaint =
      readNumber(std::string(text), range.highExcluded ? NumberBounds{} : range.bounds, value);
  if (complaint.empty() && range.highExcluded &&
      (value < range.bounds.low || value >= range.bounds.high))
    complaint = "must be in [" + shortNumber(range.bounds.low) + ", " +
                shortNumber(range.bounds.high) + "), got " + printable(text, 40);
  if (complaint.empty()) return value;
  const bool sentence = complaint.starts_with("must");
  fail(std::string(component) + ": " + std::string(key) + (sentence ? " " : ": ") + complaint);
}

// x;y;z (three finite numbers) for centre=, velocity= and circle=.
glm::dvec3 readTriple(std::string_view component, std::string_view key, std::string_view text) {
  const std::vector<std::string_view> parts = separatedBy(text, ';');
  if (parts.size() != 3)
    fail(std::string(component) + ": " + std::string(key) +
         " needs three numbers separated by ';', got " + quoted(text, 40));
  glm::dvec3 triple;
  for (int i = 0; i < 3; ++i) triple[i] = readValue(component, key, trimmed(parts[i]), Range{});
  return triple;
}

CentrePath readPath(std::string_view component, const KeyValues& values) {
  CentrePath path;
  if (const std::string_view* text = valueOf(values, "centre"))
    path.position = readTriple(component, "centre", *text);
  if (const std::string_view* text = valueOf(values, "velocity"))
    path.velocity = readTriple(component, "velocity", *text);
  if (const std::string_view* text = valueOf(values, "circle")) {
    const glm::dvec3 circle = readTriple(component, "circle", *text);
    path.circleRadius = circle.x, path.circleRate = circle.y, path.circlePhase = circle.z;
  }
  return path;
}

// One component of a kind from the table; `keysText` is what follows the ':' (none: no ':').
PotentialComponent readComponent(const ComponentKind& kind,
                                 std::optional<std::string_view> keysText) {
  std::vector<std::string> keys;
  for (const NumberKey& key : kind.keys) keys.push_back(key.name);
  keys.insert(keys.end(), kPathKeys.begin(), kPathKeys.end());
  const KeyValues values = keysText ? keyValues(kind.name, *keysText, keys) : KeyValues{};
  PotentialComponent component;
  component.kind = kind.kind;
  for (const NumberKey& key : kind.keys) {
    if (const std::string_view* text = valueOf(values, key.name))
      component.*key.field = readValue(kind.name, key.name, *text, key.range);
    else if (key.required)
      fail(std::string(kind.name) + " needs " + key.name);
  }
  component.centre = readPath(kind.name, values);
  return component;
}

// ---- MWPotential2014 ----

// galpy's natural units: lengths in 8 kpc, velocities in 220 km/s, G = 1.
constexpr double kGalpyLengthKpc = 8.0, kGalpyVelocityKms = 220.0;

// A component in galpy's natural units with the mass that galpy's normalize=`share` gives it:
// its radial force at R = 1, z = 0 is `share` (the force is linear in the mass).
PotentialComponent normalized(PotentialComponent component, double share) {
  component.mass = 1.0;
  const double unitForce = -componentAcceleration(component, glm::dvec3(1.0, 0.0, 0.0), 1.0).x;
  component.mass = share / unitForce;
  return component;
}

// Bovy (2015)'s MWPotential2014 as galpy defines it (galpy/potential/mwpotentials.py), in the run's
// units: `lengthKpc` and `velocityKms` are the run's units, `gravity` its G.
std::vector<PotentialComponent> mw2014(double lengthKpc, double velocityKms, double gravity) {
  PotentialComponent bulge, disk, halo;
  bulge.kind = PotentialKind::powerCutoff, bulge.alpha = 1.8, bulge.rc = 1.9 / 8.0;
  disk.kind = PotentialKind::miyamotoNagai, disk.a = 3.0 / 8.0, disk.b = 0.28 / 8.0;
  halo.kind = PotentialKind::nfw, halo.a = 16.0 / 8.0;
  std::vector<PotentialComponent> components = {normalized(bulge, 0.05), normalized(disk, 0.60),
                                                normalized(halo, 0.35)};
  // The run's length and velocity units in natural units: G_run M_run = GM_nat / (L V^2).
  const double length = lengthKpc / kGalpyLengthKpc, velocity = velocityKms / kGalpyVelocityKms;
  for (PotentialComponent& c : components) {
    c.a /= length, c.b /= length, c.rc /= length;
    c.mass = c.mass / (length * velocity * velocity) / gravity;
  }
  return components;
}

std::vector<PotentialComponent> readPreset(std::optional<std::string_view> keysText,
                                           double gravity) {
  const std::vector<std::string> keys = {"length", "velocity"};
  const KeyValues values =
      keysText ? keyValues(kPresetName, *keysText, keys,
                           "; in kpc and km/s; the preset is not moved, so no centre or circle")
               : KeyValues{};
  const std::string_view* length = valueOf(values, "length");
  const std::string_view* velocity = valueOf(values, "velocity");
  const double lengthKpc =
      length ? readValue(kPresetName, "length", *length, {positive()}) : kGalpyLengthKpc;
  const double velocityKms =
      velocity ? readValue(kPresetName, "velocity", *velocity, {positive()}) : kGalpyVelocityKms;
  if (!(gravity > 0.0) || !std::isfinite(gravity))
    fail(std::string(kPresetName) + " needs the run's G > 0, got " + shortNumber(gravity));
  return mw2014(lengthKpc, velocityKms, gravity);
}

// The components one text stands for (a preset stands for several).
std::vector<PotentialComponent> readComponents(std::string_view text, double gravity) {
  const std::size_t colon = text.find(':');
  const std::string_view name = trimmed(text.substr(0, colon));
  std::optional<std::string_view> keysText;
  if (colon != std::string_view::npos) keysText = text.substr(colon + 1);
  if (name == kPresetName) return readPreset(keysText, gravity);
  const ComponentKind* kind = findByName(componentKinds(), name);
  if (!kind)
    fail("unknown component " + shownKey(name) + " (components: " + joined(componentNames(), ", ") +
         ")");
  return {readComponent(*kind, keysText)};
}

// ---- Writing the text ----

// The shortest text that reads back to the same double.
std::string numberText(double value) { return shortestText(value); }

bool isPositiveZero(const glm::dvec3& v) {
  for (int i = 0; i < 3; ++i)
    if (v[i] != 0.0 || std::signbit(v[i])) return false;
  return true;
}

// ",key=x;y;z", or nothing for +0;+0;+0 (what parse() gives when the key is left out).
std::string tripleText(const char* key, const glm::dvec3& v) {
  if (isPositiveZero(v)) return {};
  return std::string(",") + key + "=" + numberText(v.x) + ";" + numberText(v.y) + ";" +
         numberText(v.z);
}

std::string componentText(const PotentialComponent& component) {
  const ComponentKind& kind = kindOf(component.kind);
  std::string text = std::string(kind.name) + ":";
  for (const NumberKey& key : kind.keys)
    text += std::string(&key == &kind.keys.front() ? "" : ",") + key.name + "=" +
            numberText(component.*key.field);
  const CentrePath& path = component.centre;
  text += tripleText("centre", path.position) + tripleText("velocity", path.velocity) +
          tripleText("circle", glm::dvec3(path.circleRadius, path.circleRate, path.circlePhase));
  return text;
}

// The four floats shaders/external_potential.glsl reads of a component, computed in double.
glm::vec4 gpuParameters(const PotentialComponent& c, double gravity) {
  const double gm = gravity * c.mass;
  switch (c.kind) {
    case PotentialKind::point:
    case PotentialKind::plummer:
      return glm::vec4(glm::dvec4(gm, c.b * c.b, 0.0, 0.0));
    case PotentialKind::hernquist:
      return glm::vec4(glm::dvec4(gm, c.a, 0.0, 0.0));
    case PotentialKind::nfw:
      return glm::vec4(glm::dvec4(gm, c.a, 1.0 / c.a, 0.0));
    case PotentialKind::miyamotoNagai:
      return glm::vec4(glm::dvec4(gm, c.a, c.b * c.b, 0.0));
    case PotentialKind::logarithmic:
      return glm::vec4(glm::dvec4(c.v0 * c.v0, c.rc * c.rc, 1.0 / (c.p * c.p), 1.0 / (c.q * c.q)));
    case PotentialKind::powerCutoff: {
      const double s = cutoffShape(c);
      // G M / rc^3: the GPU computes P(s, X) X^-1.5, finite at the centre (see the shader).
      return glm::vec4(
          glm::dvec4(gm / (c.rc * c.rc * c.rc), 1.0 / (c.rc * c.rc), s, 1.0 / std::tgamma(s)));
    }
  }
  return glm::vec4(0.0f);
}

}  // namespace

glm::dvec3 CentrePath::at(double time) const {
  const double angle = circleRate * time + circlePhase;
  return position + velocity * time +
         circleRadius * glm::dvec3(std::cos(angle), std::sin(angle), 0.0);
}

bool CentrePath::moves() const {
  return velocity != glm::dvec3(0.0) || (circleRadius != 0.0 && circleRate != 0.0);
}

ExternalPotential ExternalPotential::parse(std::string_view spec, double gravity) {
  if (trimmed(spec).empty())
    fail("no components given (components: " + joined(componentNames(), ", ") + ")");
  ExternalPotential potential;
  int index = 0;
  for (std::string_view text : componentTexts(spec)) {
    ++index;
    if (text.empty()) fail("component " + std::to_string(index) + " is empty (a '+' too many?)");
    for (const PotentialComponent& component : readComponents(text, gravity))
      potential.components_.push_back(component);
    if (potential.components_.size() > std::size_t(kMaxPotentialComponents))
      fail("more than " + std::to_string(kMaxPotentialComponents) +
           " components (mw2014 counts as 3)");
  }
  return potential;
}

std::string ExternalPotential::spec() const {
  std::string text;
  for (const PotentialComponent& component : components_)
    text.append(text.empty() ? "" : "+").append(componentText(component));
  return text;
}

std::string ExternalPotential::summary() const {
  std::string text;
  for (const PotentialComponent& component : components_) {
    text.append(text.empty() ? "" : " + ").append(kindOf(component.kind).name);
    if (component.centre.moves()) text.append(" (moving)");
  }
  return text;
}

bool ExternalPotential::moves() const {
  for (const PotentialComponent& component : components_)
    if (component.centre.moves()) return true;
  return false;
}

glm::dvec3 ExternalPotential::acceleration(const glm::dvec3& position, double time,
                                           double gravity) const {
  glm::dvec3 sum(0.0);
  for (const PotentialComponent& component : components_)
    sum += componentAcceleration(component, position - component.centre.at(time), gravity);
  return sum;
}

double ExternalPotential::potential(const glm::dvec3& position, double time, double gravity) const {
  double sum = 0.0;
  for (const PotentialComponent& component : components_)
    sum += componentPotential(component, position - component.centre.at(time), gravity);
  return sum;
}

std::vector<GpuPotentialComponent> ExternalPotential::gpuComponents(double time,
                                                                    double gravity) const {
  std::vector<GpuPotentialComponent> gpu;
  for (const PotentialComponent& component : components_)
    gpu.push_back({int(component.kind), gpuParameters(component, gravity),
                   glm::vec3(component.centre.at(time))});
  return gpu;
}

}  // namespace nbody
