#include "render/render_settings.h"

#include <algorithm>

#include <glm/geometric.hpp>

namespace nbody {

std::string_view colorByName(ColorBy colorBy) {
  return colorBy == ColorBy::Speed ? "speed" : "mass";
}

std::optional<ColorBy> findColorBy(std::string_view name) {
  for (ColorBy colorBy : {ColorBy::Speed, ColorBy::Mass})
    if (colorByName(colorBy) == name) return colorBy;
  return std::nullopt;
}

std::vector<std::string> colorByNames() { return {"speed", "mass"}; }

glm::vec2 autoColorRange(const State& state, ColorBy colorBy) {
  std::vector<float> values;
  for (std::size_t i = 0; i < state.size(); ++i)
    values.push_back(colorBy == ColorBy::Speed ? glm::length(glm::vec3(state.velocity[i]))
                                               : state.positionMass[i].w);
  if (values.empty()) return {0.0f, 1.0f};
  const std::size_t rank =
      colorBy == ColorBy::Speed ? (values.size() - 1) * 99 / 100 : values.size() - 1;
  std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(rank), values.end());
  const float high = values[rank];
  return {0.0f, high > 0.0f ? high : 1.0f};  // all at rest or massless: any range will do
}

}  // namespace nbody
