#include "render/render_settings.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include <glm/geometric.hpp>

#include "parallel/order_statistics.h"
#include "render/mass_centre.h"
#include "util/comma_list.h"

namespace nbody {

namespace {

// A colour quantity as data: its name, what it shows, where its automatic range ends, and what it
// needs measured beside the state. Its measure is its entry in shaders/colour_quantities.glsl.
struct ColourQuantity {
  ColorBy colorBy;
  std::string_view name, meaning;
  int highPermille, logLowPermille;  // of the values (of |value| for a signed quantity)
  int linearLowPermille;             // -1: a linear range starts at 0
  bool symmetric;                    // its range is symmetric about 0 (of |value|)
  bool changesSign;                  // no log scale
  BodyFieldKind field = BodyFieldKind::none;
  bool fromCentre = false;  // measured in the centre of mass's frame (r, v)
};

constexpr std::array kColourQuantities{
    ColourQuantity{ColorBy::Speed, "speed", "the speed |v|", 990, 10, -1, false, false},
    ColourQuantity{ColorBy::Mass, "mass", "the mass", 1000, 0, -1, false, false},
    ColourQuantity{ColorBy::Component, "component", "each component its own colour", 0, 0, -1,
                   false, false},
    ColourQuantity{ColorBy::Radius, "radius", "the distance from the centre of mass", 990, 10, -1,
                   false, false, BodyFieldKind::none, true},
    ColourQuantity{ColorBy::AngularMomentum, "lz",
                   "the specific angular momentum L_z about the centre of mass", 990, 0, -1, true,
                   true, BodyFieldKind::none, true},
    ColourQuantity{ColorBy::Energy, "energy",
                   "the specific energy |v|^2 / 2 + phi about the centre of mass (each body's "
                   "potential phi through a tree)",
                   990, 0, 10, false, true, BodyFieldKind::potential, true},
    ColourQuantity{ColorBy::Density, "density",
                   "the local density: the mass of the smallest tree cell of at least 32 bodies "
                   "over its largest side cubed",
                   990, 10, -1, false, false, BodyFieldKind::density},
};

#define NBODY_COUNT_ONE(name, number, measure) +1
static_assert(kColourQuantities.size() == 0 NBODY_COLOUR_QUANTITIES(NBODY_COUNT_ONE),
              "a row of kColourQuantities for each entry of shaders/colour_quantities.glsl");
#undef NBODY_COUNT_ONE

const ColourQuantity& quantityOf(ColorBy colorBy) {
  for (const ColourQuantity& quantity : kColourQuantities)
    if (quantity.colorBy == colorBy) return quantity;
  return kColourQuantities[0];
}

}  // namespace

std::array<glm::vec3, kComponentCount> defaultComponentColors() {
  return {glm::vec3(0.35f, 0.75f, 1.0f), glm::vec3(1.0f, 0.55f, 0.2f),
          glm::vec3(0.45f, 1.0f, 0.45f), glm::vec3(1.0f, 0.3f, 0.45f),
          glm::vec3(1.0f, 0.95f, 0.4f),  glm::vec3(0.8f, 0.5f, 1.0f)};
}

std::string_view componentName(int component) {
  constexpr std::array<std::string_view, kComponentCount> kNames{"gas",   "halo",  "disk",
                                                                 "bulge", "stars", "black holes"};
  return component >= 0 && component < kComponentCount ? kNames[std::size_t(component)] : "?";
}

std::string_view colorByName(ColorBy colorBy) { return quantityOf(colorBy).name; }

std::optional<ColorBy> findColorBy(std::string_view name) {
  for (const ColourQuantity& quantity : kColourQuantities)
    if (quantity.name == name) return quantity.colorBy;
  return std::nullopt;
}

std::vector<std::string> colorByNames() {
  std::vector<std::string> names;
  for (const ColourQuantity& quantity : kColourQuantities) names.emplace_back(quantity.name);
  return names;
}

std::string_view colorByMeaning(ColorBy colorBy) { return quantityOf(colorBy).meaning; }

bool isSignedQuantity(ColorBy colorBy) { return quantityOf(colorBy).changesSign; }

BodyFieldKind bodyFieldOf(ColorBy colorBy) { return quantityOf(colorBy).field; }

bool measuredFromCentre(ColorBy colorBy) { return quantityOf(colorBy).fromCentre; }

ColourCentre colourCentreOf(const State& bodies, double time, const Ranks& ranks) {
  ColourCentre centre;
  centre.time = time;
  const MassCentre found = massCentreOf(bodies, ranks);
  if (!(found.mass > 0.0)) return centre;  // massless bodies: no centre of mass, the origin
  centre.position = glm::vec3(found.position);
  centre.velocity = glm::vec3(found.velocity);
  return centre;
}

namespace {

// Bit k set: some rank's part holds a body of component k.
std::uint32_t componentsPresent(const State& bodies, const Ranks& ranks) {
  const std::vector<std::uint64_t> own = countsByComponent(bodies);
  std::vector<std::int64_t> counts(own.begin(), own.end());
  ranks.sum(counts);
  std::uint32_t present = 0;
  for (std::size_t k = 0; k < counts.size(); ++k)
    if (counts[k] > 0) present |= 1u << k;
  return present;
}

}  // namespace

void measureBodies(RenderSettings& settings, const State& bodies, double time, const Ranks& ranks) {
  settings.centre = colourCentreOf(bodies, time, ranks);
  settings.presentComponents = componentsPresent(bodies, ranks);
  if (!settings.density)
    return;  // the fitted smoothing only the density wants (the panel offers it)
  std::vector<float> radii;
  radii.reserve(bodies.size());
  for (const glm::vec4& body : bodies.positionMass)
    if (const float r = glm::length(glm::vec3(body) - settings.centre.position); std::isfinite(r))
      radii.push_back(r);
  const std::optional<float> radius = valueAtPermilleOfParts(radii, 900, ranks);
  const auto count = float(ranks.sum(std::int64_t(bodies.size())));
  if (radius && *radius > 0.0f && std::isfinite(*radius))
    settings.fittedSmoothing = 2.0f * *radius / std::cbrt(count);
}

float colourQuantity(const State& state, std::size_t i, ColorBy colorBy, const ColourCentre& centre,
                     std::span<const float> fieldValues) {
  using glm::dot, glm::length;  // the measures are GLSL: their names as GLSL has them
  const glm::vec4 positionMass = state.positionMass[i];
  const glm::vec3 velocity(state.velocity[i]);
  const glm::vec3 r = glm::vec3(positionMass) - centre.position, v = velocity - centre.velocity;
  const float field = fieldValues.size() == state.size() ? fieldValues[i] : std::nanf("");
  switch (colorBy) {
#define NBODY_MEASURE_CASE(name, number, measure) \
  case ColorBy::name:                             \
    return measure;
    NBODY_COLOUR_QUANTITIES(NBODY_MEASURE_CASE)
#undef NBODY_MEASURE_CASE
  }
  return 0.0f;
}

glm::vec2 autoColorRange(const State& bodies, ColorBy colorBy, bool logScale,
                         std::span<const float> field, const Ranks& ranks) {
  if (colorBy == ColorBy::Component) return {0.0f, 1.0f};  // the components' own colours: no range
  const ColourQuantity& quantity = quantityOf(colorBy);
  const ColourCentre centre =
      quantity.fromCentre ? colourCentreOf(bodies, 0.0, ranks) : ColourCentre{};
  std::vector<float> values;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const float value = colourQuantity(bodies, i, colorBy, centre, field);
    if (!std::isfinite(value)) continue;  // a density of bodies at one point; no field measured
    if (quantity.symmetric)
      values.push_back(std::abs(value));
    else if (!logScale || value > 0.0f)
      values.push_back(value);
  }
  const auto at = [&](int permille) { return valueAtPermilleOfParts(values, permille, ranks); };
  const std::optional<float> highest = at(quantity.highPermille);
  if (!highest)
    return {logScale ? 0.1f : 0.0f, 1.0f};  // all at rest or massless: any range will do
  const float high = *highest;
  if (quantity.symmetric) return high > 0.0f ? glm::vec2(-high, high) : glm::vec2(-1.0f, 1.0f);
  const float low = logScale                          ? *at(quantity.logLowPermille)
                    : quantity.linearLowPermille >= 0 ? *at(quantity.linearLowPermille)
                                                      : 0.0f;
  if (!(high > low)) return logScale ? glm::vec2(high / 10.0f, high) : glm::vec2(0.0f, 1.0f);
  return {low, high};
}

std::uint32_t parseComponentList(const std::string& text) {
  std::uint32_t bits = 0;
  for (const std::string_view item : commaSeparated(text)) {
    if (item.size() != 1 || item[0] < '0' || item[0] >= char('0' + kComponentCount))
      throw std::invalid_argument("expected components 0 to " +
                                  std::to_string(kComponentCount - 1) + ", comma-separated, got " +
                                  text);
    bits |= 1u << (item[0] - '0');
  }
  return bits;
}

}  // namespace nbody
