#pragma once
// The renderer's command-line options (--point-size, --brightness, --colormap, --color-by,
// --color-scale, --hide-components, --color-range, --show, --smoothing, --overlays, --cell-depth,
// --select, --background, --camera), shared by the commands that draw.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app/run/cli_declarations.h"

#include "engines/engine.h"
#include "render/camera.h"
#include "render/render_settings.h"
#include "render/selection.h"

namespace nbody {

struct RenderOptions {
  RenderSettings settings;
  std::string colorRange = "auto";  // "auto" or LOW,HIGH
  std::string background = "0,0,0";
  std::string camera = "default";
  std::string select;  // ID[,ID...]: bodies ringed, their orbits drawn (render/selection.h)
};

// --select's IDs, at most kMostSelectedIds (what the window and the drawn runs follow); std::
// invalid_argument naming what is wrong (readInteger's words).
inline constexpr std::size_t kMostSelectedIds = 64;
std::vector<std::uint64_t> parseIdList(const std::string& text);

void addRenderOptions(CLI::App& command, RenderOptions& options);

// Where --camera puts the camera: a direction, and a distance unless it should fit the bodies.
struct CameraSpec {
  float yawDegrees = 0.0f, pitchDegrees = 0.0f;
  std::optional<float> distance;
};
// A preset name or YAW,PITCH[,DISTANCE]; throws std::invalid_argument saying what is wrong.
CameraSpec parseCameraSpec(std::string_view text);
// Aims at the sphere's centre from the spec's direction and distance (or the fitting distance).
Camera placeCamera(const CameraSpec& spec, const BoundingSphere& sphere, float aspect);

// The settings with the colour range, background and colour centre filled in (auto: from `state`,
// whose time is `time`; on a log scale always above 0, and a fixed range that is not is a usage
// error of the command line).
// `field`: the bodies' BodyField values where the colour needs them (render/body_field.h).
// `state` may be this rank's part of the bodies, with `ranks` holding the rest (autoColorRange).
RenderSettings resolveRenderSettings(const RenderOptions& options, const State& state, double time,
                                     std::span<const float> field = {},
                                     const Ranks& ranks = processAlone());
// --show density with an automatic range: the range is fitted to the first picture
// (PointSpriteRenderer::fitDensityRange), which resolveRenderSettings cannot see.
bool fitsDensityToPicture(const RenderOptions& options);
// Whether pictures of `engine`'s `bodies` bodies are drawn by each rank from its own part, where it
// lies, and composited (PointSpriteRenderer::compositeAcross), rather than from the whole state
// gathered: where the ranks hold parts (a decomposed tree's) and the look needs nothing of every
// body that the parts do not give: sprites (not the density), colours without a field (not energy
// or density), no tree cells, no --select. The camera and colours are then measured from the parts
// (the same bits as one process's).
bool drawsRanksParts(const Engine& engine, const RenderOptions& options, std::size_t bodies);
// Whether `look` needs every body in one place: the density, a colour from a field (energy,
// density), the tree's cells.
bool needsEveryBody(const RenderSettings& look);
// Whether pictures with `options` can be drawn from the ranks' parts: a look that needs nothing
// beyond them, and no --select.
bool drawsFromParts(const RenderOptions& options);
// Picks --select's bodies in `state`; on stderr, one line naming the IDs `state` has no body of
// (unless `quiet`): "shot: --select: no body with ID 5000 among 4096".
void pickSelected(Selection& selection, const RenderOptions& options, const State& state,
                  const char* command, bool quiet);

}  // namespace nbody
