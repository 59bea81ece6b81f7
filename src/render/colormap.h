#pragma once
// Colormaps for colouring bodies by a quantity (speed, mass). A colormap is a few evenly spaced
// anchor colours joined by straight lines; the renderer turns it into a 1-D texture. Each is bright
// enough at its low end to show on a dark background, since the light of the sprites is added up.

#include <string>
#include <string_view>
#include <vector>

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

namespace nbody {

struct Colormap {
  std::string name;
  std::string description;
  std::vector<glm::vec3> anchors;  // colours at t = 0, 1/(n-1), ..., 1; RGB in [0, 1]
};

const std::vector<Colormap>& allColormaps();
const Colormap* findColormap(std::string_view name);
std::vector<std::string> colormapNames();

// The colour at t (clamped to [0, 1]).
glm::vec3 sampleColormap(const Colormap& colormap, float t);
// `size` samples from t = 0 to t = 1, for a texture; alpha is 1.
std::vector<glm::vec4> colormapTable(const Colormap& colormap, int size);

}  // namespace nbody
