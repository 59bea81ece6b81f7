#pragma once
// What the point-sprite renderer draws and how: a plain struct that the command line fills and the
// interactive window's panel will edit.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "colour_quantities.glsl"
#include "parallel/ranks.h"
#include "physics/state.h"
#include "render/overlay_layout.h"

namespace nbody {

// What colours the bodies: the quantities of shaders/colour_quantities.glsl, which defines each
// once for the shader and for C++. Radius, AngularMomentum (the specific L_z) and Energy (the
// specific energy |v|^2 / 2 + phi) are measured from the centre of mass and its velocity; Energy's
// potential phi and Density (the local density) come from a tree of the bodies
// (render/body_field.h).
#define NBODY_COLOR_BY_ENTRY(name, number, measure) name = number,
enum class ColorBy { NBODY_COLOUR_QUANTITIES(NBODY_COLOR_BY_ENTRY) };
#undef NBODY_COLOR_BY_ENTRY

// What a quantity needs measured beside the state (render/body_field.h).
enum class BodyFieldKind { none, potential, density };

// The centre of mass and its velocity at `time` (the origin at rest for massless bodies). An
// isolated system's centre moves uniformly, as far as the engine conserves momentum, so `at` gives
// it at other times without reading the state back; it is measured again whenever the colours are
// fitted and whenever a snapshot is shown.
struct ColourCentre {
  glm::vec3 position{0.0f}, velocity{0.0f};
  double time = 0.0;
  glm::vec3 at(double when) const { return position + velocity * float(when - time); }
};
// Of every rank's part (`bodies` this rank's; the same bits for one process and any number of
// ranks, render/mass_centre.h). Every rank calls it alike, as measureBodies and autoColorRange.
ColourCentre colourCentreOf(const State& bodies, double time, const Ranks& ranks = processAlone());

// A colour a component (GADGET's particle type: gas, halo, disk, bulge, stars, boundary), distinct
// from its neighbours' and bright enough on black.
std::array<glm::vec3, kComponentCount> defaultComponentColors();
// GADGET's name of component k < kComponentCount ("gas", "halo", ...), for legends.
std::string_view componentName(int component);

// A field added here is added to app/live/parts_calls.cpp's eachField too (the window's other
// ranks draw with what rank 0 sends of it).
struct RenderSettings {
  // Diameter in pixels of a body's sprite at the camera's target distance; nearer bodies are
  // larger, farther ones smaller (and dimmer once below the smallest size drawn).
  float pointSize = 4.0f;
  // Exposure: scales the light of every sprite before the light is mapped to the screen's range.
  float brightness = 1.0f;
  std::string colormap = "fire";
  ColorBy colorBy = ColorBy::Speed;
  // The values of the coloured quantity at the colormap's two ends (autoColorRange picks them).
  glm::vec2 colorRange{0.0f, 1.0f};
  // The colormap spans log(quantity) from log(colorRange.x) (which must then be above 0).
  bool logScale = false;
  ColourCentre centre;  // where radius and L_z are measured from
  // Colouring by component: each component's colour.
  std::array<glm::vec3, kComponentCount> componentColors = defaultComponentColors();
  std::uint32_t hiddenComponents = 0;  // bit k set: component k is not drawn and adds no light
  // Bit k set: some body is of component k (the colour bar's legend lists these). measureBodies.
  std::uint32_t presentComponents = (1u << kComponentCount) - 1;
  glm::vec3 background{0.0f};  // RGB in [0, 1]
  // Trails: the light of earlier pictures stays and fades to half in this much simulated time
  // (the renderer is told the time of each state it draws). 0: off, every picture starts black.
  float trailHalfLife = 0.0f;
  // The overlays painted over the picture (OverlayPainter): bit overlayBit(Overlay) of
  // render/overlay_layout.h each.
  std::uint32_t overlays = 0;
  bool shows(Overlay overlay) const { return (overlays & overlayBit(overlay)) != 0; }
  int cellDepth = 3;  // the cells overlay's deepest octree level (render/tree_cells.h)
  // The projected density instead of sprites (DensityPass): each shown body's mass spread by a 2-D
  // kernel of radius shownSmoothing() scene units, and the surface density (mass per square scene
  // unit) through the colormap on a log scale over colorRange. Trails do not apply.
  bool density = false;
  float smoothing = 0.0f;  // scene units; 0: fittedSmoothing
  float fittedSmoothing =
      0.1f;  // measureBodies with density on: twice the 90th-percentile radius over N^(1/3)
  float shownSmoothing() const { return smoothing > 0.0f ? smoothing : fittedSmoothing; }
  bool logColours() const { return logScale || density; }  // how the colormap spans colorRange
};

// What the colours take from the bodies shown, whose time is `time`: their centre
// (colourCentreOf), which components they are of, and the density's fitted smoothing; of every
// rank's part, as colourCentreOf.
void measureBodies(RenderSettings& settings, const State& bodies, double time,
                   const Ranks& ranks = processAlone());

std::string_view colorByName(ColorBy colorBy);
std::optional<ColorBy> findColorBy(std::string_view name);
std::vector<std::string> colorByNames();
// What the colour shows, in words (a help text's or a tooltip's).
std::string_view colorByMeaning(ColorBy colorBy);
// A quantity that changes sign (L_z, the energy): it has no log scale (L_z's range is symmetric
// about 0).
bool isSignedQuantity(ColorBy colorBy);
BodyFieldKind bodyFieldOf(ColorBy colorBy);
// A quantity measured in the centre of mass's frame (radius, L_z, energy): it needs the centre.
bool measuredFromCentre(ColorBy colorBy);

// From 0 to a value that most bodies stay below: the 99th percentile of the speeds, radii or
// densities (so that a few fast escapers do not wash out everybody else's colour), or the largest
// mass; from minus to plus the 99th percentile of |L_z|; the specific energy from its 1st to its
// 99th percentile. On a log scale from the 1st percentile of the values above 0 (the smallest mass
// above 0) instead. Radius, L_z and energy from the state's own centre. `field`: the bodies'
// BodyField values, which Energy and Density need (without them, or where none is finite, the
// range is 0 to 1). Values that are not finite (a density of bodies at one point) are left out.
// Of every rank's part, as colourCentreOf (`field` this rank's part's): the percentiles by
// parallel/order_statistics.h.
glm::vec2 autoColorRange(const State& bodies, ColorBy colorBy, bool logScale = false,
                         std::span<const float> field = {}, const Ranks& ranks = processAlone());
// The quantity `colorBy` shows of body `i`, measured from `centre` (as the shader measures it),
// with the bodies' BodyField values where it needs them (NaN without them).
float colourQuantity(const State& state, std::size_t i, ColorBy colorBy, const ColourCentre& centre,
                     std::span<const float> fieldValues = {});
// "0,2" (the components --hide-components names) as the bits of RenderSettings::hiddenComponents;
// std::invalid_argument for anything but components below kComponentCount, comma-separated.
std::uint32_t parseComponentList(const std::string& text);

}  // namespace nbody
