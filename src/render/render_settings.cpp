#include "render/render_settings.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <glm/geometric.hpp>

namespace nbody {

namespace {

constexpr std::array<std::pair<ColorBy, std::string_view>, 3> kColorByNames{
    {{ColorBy::Speed, "speed"}, {ColorBy::Mass, "mass"}, {ColorBy::Component, "component"}}};

// The value at `permille` of the way up the sorted values (reordering them).
float valueAt(std::vector<float>& values, int permille) {
  const std::size_t rank = (values.size() - 1) * std::size_t(permille) / 1000;
  std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(rank), values.end());
  return values[rank];
}

}  // namespace

std::array<glm::vec3, kComponentCount> defaultComponentColors() {
  return {glm::vec3(0.35f, 0.75f, 1.0f), glm::vec3(1.0f, 0.55f, 0.2f), glm::vec3(0.45f, 1.0f, 0.45f),
          glm::vec3(1.0f, 0.3f, 0.45f), glm::vec3(1.0f, 0.95f, 0.4f), glm::vec3(0.8f, 0.5f, 1.0f)};
}

std::string_view colorByName(ColorBy colorBy) {
  for (const auto& [each, name] : kColorByNames)
    if (each == colorBy) return name;
  return "?";
}

std::optional<ColorBy> findColorBy(std::string_view name) {
  for (const auto& [colorBy, each] : kColorByNames)
    if (each == name) return colorBy;
  return std::nullopt;
}

std::vector<std::string> colorByNames() {
  std::vector<std::string> names;
  for (const auto& entry : kColorByNames) names.emplace_back(entry.second);
  return names;
}

glm::vec2 autoColorRange(const State& state, ColorBy colorBy, bool logScale) {
  if (colorBy == ColorBy::Component) return {0.0f, 1.0f};  // the components' own colours: no range
  const bool bySpeed = colorBy == ColorBy::Speed;
  std::vector<float> values;
  for (std::size_t i = 0; i < state.size(); ++i) {
    const float value = bySpeed ? glm::length(glm::vec3(state.velocity[i])) : state.positionMass[i].w;
    if (!logScale || value > 0.0f) values.push_back(value);
  }
  if (values.empty()) return {logScale ? 0.1f : 0.0f, 1.0f};  // all at rest or massless: any range will do
  const float high = valueAt(values, bySpeed ? 990 : 1000);
  const float low = logScale ? valueAt(values, bySpeed ? 10 : 0) : 0.0f;
  if (!(high > low)) return logScale ? glm::vec2(high / 10.0f, high) : glm::vec2(0.0f, 1.0f);
  return {low, high};
}

std::uint32_t parseComponentList(const std::string& text) {
  std::uint32_t bits = 0;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    if (item.size() != 1 || item[0] < '0' || item[0] >= char('0' + kComponentCount))
      throw std::invalid_argument("expected components 0 to " + std::to_string(kComponentCount - 1) +
                                  ", comma-separated, got " + text);
    bits |= 1u << (item[0] - '0');
    at = comma + 1;
  }
  return bits;
}

}  // namespace nbody
