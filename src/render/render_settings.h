#pragma once
// What the point-sprite renderer draws and how: a plain struct that the command line fills and the
// interactive window's panel will edit.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "physics/state.h"

namespace nbody {

enum class ColorBy { Speed, Mass };

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
  glm::vec3 background{0.0f};  // RGB in [0, 1]
  // Trails: the light of earlier pictures stays and fades to half in this much simulated time
  // (the renderer is told the time of each state it draws). 0: off, every picture starts black.
  float trailHalfLife = 0.0f;
};

std::string_view colorByName(ColorBy colorBy);
std::optional<ColorBy> findColorBy(std::string_view name);
std::vector<std::string> colorByNames();

// From 0 to a value that most bodies stay below: the 99th percentile of the speeds (so that a few
// fast escapers do not wash out everybody else's colour), or the largest mass.
glm::vec2 autoColorRange(const State& state, ColorBy colorBy);

}  // namespace nbody
