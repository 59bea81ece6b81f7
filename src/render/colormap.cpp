#include "render/colormap.h"

#include "util/named_table.h"

#include <algorithm>
#include <cmath>

#include <glm/common.hpp>

namespace nbody {
namespace {

glm::vec3 hex(unsigned rgb) {
  return glm::vec3(float((rgb >> 16) & 0xff), float((rgb >> 8) & 0xff), float(rgb & 0xff)) / 255.0f;
}

std::vector<glm::vec3> hexes(std::initializer_list<unsigned> colours) {
  std::vector<glm::vec3> anchors;
  for (unsigned rgb : colours) anchors.push_back(hex(rgb));
  return anchors;
}

}  // namespace

const std::vector<Colormap>& allColormaps() {
  static const std::vector<Colormap> colormaps{
      {"fire", "dark red, orange, gold, white: slow bodies glow red, fast ones white-hot",
       hexes({0x7a1005, 0xd9400a, 0xffa21f, 0xffdc73, 0xfff8e6})},
      {"ice", "deep blue, sky blue, white", hexes({0x10207a, 0x1f66e0, 0x6cc4ff, 0xeef8ff})},
      // matplotlib's viridis and plasma (CC0), sampled at nine and eight points.
      {"viridis", "perceptually uniform, blue-purple to green to yellow",
       hexes({0x440154, 0x472c7a, 0x3b518b, 0x2c718e, 0x21908d, 0x27ad81, 0x5cc863, 0xaadc32,
              0xfde725})},
      {"plasma", "perceptually uniform, blue to magenta to yellow",
       hexes({0x0d0887, 0x5302a3, 0x8b0aa5, 0xb83289, 0xdb5c68, 0xf48849, 0xfebd2a, 0xf0f921})},
  };
  return colormaps;
}

const Colormap* findColormap(std::string_view name) { return findByName(allColormaps(), name); }

std::vector<std::string> colormapNames() { return namesOf(allColormaps()); }

glm::vec3 sampleColormap(const Colormap& colormap, float t) {
  const auto& anchors = colormap.anchors;
  if (anchors.size() == 1) return anchors[0];
  const float position = std::clamp(t, 0.0f, 1.0f) * float(anchors.size() - 1);
  const std::size_t below = std::min(std::size_t(position), anchors.size() - 2);
  return glm::mix(anchors[below], anchors[below + 1], position - float(below));
}

std::vector<glm::vec4> colormapTable(const Colormap& colormap, int size) {
  std::vector<glm::vec4> table;
  for (int k = 0; k < size; ++k)
    table.emplace_back(sampleColormap(colormap, size > 1 ? float(k) / float(size - 1) : 0.0f),
                       1.0f);
  return table;
}

}  // namespace nbody
