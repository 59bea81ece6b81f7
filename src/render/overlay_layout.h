#pragma once
// What the overlays on a picture say and where their parts point, worked out on the CPU
// (OverlayPainter draws them): the colour bar's labelled values, the scale bar's length, the axes'
// directions on the picture and the clock's text.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <glm/vec2.hpp>

#include "render/camera.h"

namespace nbody {

// Each overlay is a switch: bit (1 << int(overlay)) of RenderSettings::overlays.
enum class Overlay { ColourBar, Axes, ScaleBar, Clock, Cells };
inline constexpr int kOverlayCount = 5;
constexpr std::uint32_t overlayBit(Overlay overlay) { return 1u << int(overlay); }

std::string_view overlayName(Overlay overlay);
std::string_view overlayMeaning(Overlay overlay);
std::vector<std::string> overlayNames();
// "colorbar,clock" (names of overlayNames()), "all" or "none" as the bits of
// RenderSettings::overlays; std::invalid_argument naming the choices for anything else.
std::uint32_t parseOverlayList(const std::string& text);

// A labelled value of the colour bar, `fraction` of the way from its low end to its high end (as
// the sprites' colormap places it: linearly, or by its logarithm on a log scale).
struct Tick {
  double value = 0.0;
  float fraction = 0.0f;
  std::string label;
};
// Round values inside `range`, `mostTicks` (at least 2) at most: multiples of a round step (1, 2 or
// 5 times a power of ten), 3 to 7 of them, of a larger step where more than `mostTicks`; on a log
// scale the powers of ten, or 1, 2 and 5 times them where fewer than two powers fall inside, every
// k-th where too many; failing those, the ends to three digits. The range must rise (and lie above
// 0 on a log scale).
std::vector<Tick> colourBarTicks(glm::vec2 range, bool logScale, int mostTicks = 7);

// A bar of a round length (1, 2 or 5 times a power of ten, in scene units) at the camera's target
// distance, as long on the picture as fits in `mostPixels`.
struct ScaleBar {
  double length = 0.0;  // scene units
  float pixels = 0.0f;  // its length on the picture
  std::string label;
};
ScaleBar scaleBarFor(const Camera& camera, int pictureHeight, float mostPixels);

// A scene axis as the picture shows it: `direction` in picture pixels per scene unit scaled to a
// unit vector's full length (x right, y down, as the picture's rows run), `towardsViewer` how much
// of it points out of the picture.
struct AxisArrow {
  glm::vec2 direction{0.0f};
  float towardsViewer = 0.0f;
  char name = 'x';
};
// The x, y and z axes, the farthest first (so that nearer arrows are drawn over them).
std::array<AxisArrow, 3> axisArrows(const Camera& camera);

// "t = 1.25   step 400".
std::string clockText(double time, long long step);
// How many times the overlays' 13-pixel font is scaled up for a picture `height` pixels high: once
// every 540 rows, rounded (1 up to 809, 2 for 1080p), so that text keeps its size against the
// picture.
int overlayScale(int height);

}  // namespace nbody
