#include "render/overlay_layout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <glm/geometric.hpp>
#include <glm/trigonometric.hpp>

#include "util/comma_list.h"

namespace nbody {
namespace {

struct OverlayRow {
  Overlay overlay;
  std::string_view name, meaning;
};

constexpr std::array<OverlayRow, kOverlayCount> kOverlays{{
    {Overlay::ColourBar, "colorbar", "the colormap with its values, or each component's colour"},
    {Overlay::Axes, "axes", "the directions of the scene's x, y and z axes"},
    {Overlay::ScaleBar, "scale", "a bar of a round length in scene units, at the camera's target"},
    {Overlay::Clock, "clock", "the simulated time and the step"},
    {Overlay::Cells, "cells",
     "the boxes of the tree's cells (its octree levels) down to --cell-depth"},
}};

constexpr int kTicksWanted = 5;

// The round number (1, 2 or 5 times a power of ten) nearest `x` > 0 on a log scale, or the largest
// not above it.
double roundNumber(double x, bool atMost) {
  const double power = std::pow(10.0, std::floor(std::log10(x)));
  const double mantissa = x / power;
  if (atMost) return power * (mantissa >= 5.0 ? 5.0 : mantissa >= 2.0 ? 2.0 : 1.0);
  return power * (mantissa < 1.5 ? 1.0 : mantissa < 3.5 ? 2.0 : mantissa < 7.5 ? 5.0 : 10.0);
}

// The next smaller or larger round number.
double nextRoundNumber(double round, bool larger) {
  const double power = std::pow(10.0, std::floor(std::log10(round) + 1e-9));
  const double mantissa = round / power;
  if (larger) return mantissa > 4.5 ? 10.0 * power : mantissa > 1.5 ? 5.0 * power : 2.0 * power;
  return mantissa > 4.5 ? 2.0 * power : mantissa > 1.5 ? power : 0.5 * power;
}

int decimalExponent(double x) { return int(std::floor(std::log10(std::abs(x)))); }

// `value` with as many significant digits as tell it from its neighbours `spacing` away (at least
// `fewest`), and whole numbers below a million in full.
std::string numberLabel(double value, double spacing, int fewest = 1) {
  if (std::abs(value) < spacing * 1e-6) return "0";
  int digits = std::clamp(decimalExponent(value) - decimalExponent(spacing) + 1, fewest, 7);
  if (std::abs(value) >= 1.0 && std::abs(value) < 1e6)
    digits = std::max(digits, decimalExponent(value) + 1);
  char text[32];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return text;
}

float fractionOf(double value, glm::vec2 range, bool logScale) {
  const double low = range.x, high = range.y;
  return float(logScale ? std::log(value / low) / std::log(high / low)
                        : (value - low) / (high - low));
}

std::vector<double> multiplesInside(double low, double high, double step) {
  std::vector<double> values;
  const double slack = 1e-9 * (high - low);
  for (double k = std::ceil(low / step - 1e-9); k * step <= high + slack; ++k)
    values.push_back(k * step);
  return values;
}

// Multiples of the round step nearest a quarter of the range (3 to 7 of them), of larger steps
// while there are more than `most`.
std::vector<double> linearTicks(double low, double high, std::size_t most) {
  double step = roundNumber((high - low) / (kTicksWanted - 1), false);
  std::vector<double> values = multiplesInside(low, high, step);
  if (values.size() < 3) {
    step = nextRoundNumber(step, false);
    values = multiplesInside(low, high, step);
  }
  while (values.size() > most) {
    step = nextRoundNumber(step, true);
    values = multiplesInside(low, high, step);
  }
  return values;
}

// Every k-th value, the first kept, for `most` at most.
std::vector<double> thinned(const std::vector<double>& values, std::size_t most) {
  const std::size_t every = std::max<std::size_t>(1, (values.size() + most - 1) / most);
  std::vector<double> kept;
  for (std::size_t i = 0; i < values.size(); i += every) kept.push_back(values[i]);
  return kept;
}

// Powers of ten inside [low, high]; where fewer than two, 1, 2 and 5 times them. Every k-th of
// them where there are more than `most`.
std::vector<double> logTicks(double low, double high, std::size_t most) {
  const int first = int(std::ceil(std::log10(low) - 1e-9)),
            last = int(std::floor(std::log10(high) + 1e-9));
  std::vector<double> values;
  if (last - first + 1 >= 2) {
    for (int e = first; e <= last; ++e) values.push_back(std::pow(10.0, e));
    return thinned(values, most);
  }
  for (int e = first - 1; e <= last; ++e)
    for (double mantissa : {1.0, 2.0, 5.0}) {
      const double value = mantissa * std::pow(10.0, e);
      if (value >= low * (1.0 - 1e-9) && value <= high * (1.0 + 1e-9)) values.push_back(value);
    }
  return thinned(values, most);
}

}  // namespace

std::string_view overlayName(Overlay overlay) { return kOverlays[std::size_t(overlay)].name; }
std::string_view overlayMeaning(Overlay overlay) { return kOverlays[std::size_t(overlay)].meaning; }

std::vector<std::string> overlayNames() {
  std::vector<std::string> names;
  for (const OverlayRow& row : kOverlays) names.emplace_back(row.name);
  return names;
}

std::uint32_t parseOverlayList(const std::string& text) {
  if (text == "none") return 0;
  if (text == "all") return (1u << kOverlayCount) - 1;
  std::uint32_t bits = 0;
  for (const std::string_view item : commaSeparated(text)) {
    const auto found = std::find_if(kOverlays.begin(), kOverlays.end(),
                                    [&](const OverlayRow& row) { return row.name == item; });
    if (found == kOverlays.end()) {
      std::string choices;
      for (const OverlayRow& row : kOverlays) choices += std::string(row.name) + ", ";
      throw std::invalid_argument("expected all, none or some of " +
                                  choices.substr(0, choices.size() - 2) +
                                  ", comma-separated, got " + text);
    }
    bits |= overlayBit(found->overlay);
  }
  return bits;
}

std::vector<Tick> colourBarTicks(glm::vec2 range, bool logScale, int mostTicks) {
  if (!(range.y > range.x) || (logScale && !(range.x > 0.0f)))
    throw std::invalid_argument("the colour bar needs a rising range (above 0 on a log scale)");
  const double low = range.x, high = range.y;
  const std::size_t most = std::size_t(std::max(2, mostTicks));
  std::vector<double> values = logScale ? logTicks(low, high, most) : linearTicks(low, high, most);
  const bool endsOnly = values.size() < 2;
  if (endsOnly) values = {low, high};
  std::vector<Tick> ticks;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double spacing = std::abs(values[i] - values[i == 0 ? 1 : i - 1]);
    ticks.push_back({values[i], std::clamp(fractionOf(values[i], range, logScale), 0.0f, 1.0f),
                     numberLabel(values[i], spacing, endsOnly ? 3 : 1)});
  }
  return ticks;
}

ScaleBar scaleBarFor(const Camera& camera, int pictureHeight, float mostPixels) {
  const double pixelsPerUnit =
      double(pictureHeight) / (2.0 * double(camera.distance) *
                               std::tan(glm::radians(double(camera.verticalFovDegrees)) / 2.0));
  const double length = roundNumber(double(mostPixels) / pixelsPerUnit, true);
  return {length, float(length * pixelsPerUnit), numberLabel(length, length)};
}

std::array<AxisArrow, 3> axisArrows(const Camera& camera) {
  const glm::vec3 right = camera.right(), up = camera.up(), towardsViewer = -camera.forward();
  std::array<AxisArrow, 3> arrows;
  for (int a = 0; a < 3; ++a) {
    glm::vec3 axis(0.0f);
    axis[a] = 1.0f;
    arrows[std::size_t(a)] = {
        {glm::dot(axis, right), -glm::dot(axis, up)}, glm::dot(axis, towardsViewer), char('x' + a)};
  }
  std::sort(arrows.begin(), arrows.end(), [](const AxisArrow& a, const AxisArrow& b) {
    return a.towardsViewer < b.towardsViewer;
  });
  return arrows;
}

std::string clockText(double time, long long step) {
  char text[96];
  std::snprintf(text, sizeof text, "t = %.6g   step %lld", time, step);
  return text;
}

int overlayScale(int height) { return std::max(1, int(std::lround(height / 540.0))); }

}  // namespace nbody
