#include "app/run/render_options.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/run/run_options.h"
#include "render/body_field.h"
#include "render/colormap.h"
#include "render/overlay_layout.h"
#include "render/tree_cells.h"
#include "util/comma_list.h"
#include "util/printable_text.h"

namespace nbody {
namespace {

// Comma-separated finite numbers, `count` of them (or minCount..count).
std::vector<float> parseNumbers(std::string_view text, std::size_t minCount, std::size_t count) {
  std::vector<float> numbers;
  for (const std::string_view item : commaSeparated(text)) {
    float value = 0.0f;  // by the one reader of numbers (util/number_text.h)
    if (const std::string complaint = readNumber(std::string(item), NumberBounds{}, value);
        !complaint.empty())
      throw std::invalid_argument(complaint);
    numbers.push_back(value);
  }
  if (numbers.size() < minCount || numbers.size() > count)
    throw std::invalid_argument("expected " +
                                (minCount == count
                                     ? std::to_string(count)
                                     : std::to_string(minCount) + " or " + std::to_string(count)) +
                                " comma-separated numbers");
  return numbers;
}

glm::vec2 parseColorRange(std::string_view text) {
  const std::vector<float> range = parseNumbers(text, 2, 2);
  if (!(range[0] < range[1])) throw std::invalid_argument("LOW must be below HIGH");
  return {range[0], range[1]};
}

glm::vec3 parseBackground(std::string_view text) {
  const std::vector<float> rgb = parseNumbers(text, 3, 3);
  for (float channel : rgb)
    if (channel < 0.0f || channel > 1.0f)
      throw std::invalid_argument("R, G and B must be in [0, 1]");
  return {rgb[0], rgb[1], rgb[2]};
}

// A CLI11 check that runs `parse` on the text and reports its complaint.
template <typename Parse>
CLI::Validator parsedBy(Parse parse, std::string description) {
  return CLI::Validator(
      [parse](std::string& text) -> std::string {
        try {
          parse(text);
          return {};
        } catch (const std::invalid_argument& e) {
          return quoted(text, 64) + ": " +
                 e.what();  // at most 64 bytes of it: a list may be 79 KB long
        }
      },
      std::move(description));
}

// "default, front, ..." or, with their directions, "default = 30,20, front = 0,0, ...".
std::string presetList(bool withDirections) {
  std::string list;
  for (const CameraPreset& preset : cameraPresets()) {
    list += (list.empty() ? "" : ", ") + preset.name;
    if (withDirections)
      list += " = " + std::to_string(int(preset.yawDegrees)) + "," +
              std::to_string(int(preset.pitchDegrees));
  }
  return list;
}

// "speed (the speed |v|), mass (...), ...": every --color-by choice with what it shows.
std::string colourChoicesHelp() {
  std::string text;
  for (const std::string& name : colorByNames()) {
    if (!text.empty()) text += ", ";
    text += name + " (" + std::string(colorByMeaning(*findColorBy(name))) + ")";
  }
  return text;
}

// "colorbar (the colormap with its values, ...), axes (...), ...": every overlay with what it
// shows.
std::string overlayChoicesHelp() {
  std::string text;
  for (int k = 0; k < kOverlayCount; ++k) {
    if (!text.empty()) text += ", ";
    text +=
        std::string(overlayName(Overlay(k))) + " (" + std::string(overlayMeaning(Overlay(k))) + ")";
  }
  return text;
}

}  // namespace

std::vector<std::uint64_t> parseIdList(const std::string& text) {
  std::vector<std::uint64_t> ids;
  for (const std::string_view item : commaSeparated(text)) {
    std::uint64_t id = 0;
    const std::string complaint = readInteger(std::string(item), std::uint64_t(0), UINT64_MAX, id);
    if (!complaint.empty()) throw std::invalid_argument(complaint);
    ids.push_back(id);
  }
  if (ids.size() > kMostSelectedIds)
    throw std::invalid_argument("at most " + std::to_string(kMostSelectedIds) + " IDs, got " +
                                std::to_string(ids.size()));
  return ids;
}

void pickSelected(Selection& selection, const RenderOptions& options, const State& state,
                  const char* command, bool quiet) {
  if (options.select.empty()) return;
  selection.pickIds(state, parseIdList(options.select));
  const std::vector<std::uint64_t> missing = selection.missing();
  if (missing.empty() || quiet) return;
  std::string ids;
  for (std::uint64_t id : missing) ids.append(ids.empty() ? "" : ", ").append(std::to_string(id));
  std::fprintf(stderr, "%s: --select: no body with ID %s among %zu\n", command, ids.c_str(),
               state.size());
}

bool fitsDensityToPicture(const RenderOptions& options) {
  return options.settings.density && options.colorRange == "auto";
}

CameraSpec parseCameraSpec(std::string_view text) {
  if (const CameraPreset* preset = findCameraPreset(text))
    return {preset->yawDegrees, preset->pitchDegrees, std::nullopt};
  if (text.find(',') == std::string_view::npos)
    throw std::invalid_argument("not a preset (" + presetList(false) +
                                ") nor YAW,PITCH[,DISTANCE]");
  const std::vector<float> numbers = parseNumbers(text, 2, 3);
  CameraSpec spec{numbers[0], numbers[1], std::nullopt};
  if (spec.pitchDegrees < -90.0f || spec.pitchDegrees > 90.0f)
    throw std::invalid_argument("PITCH must be in [-90, 90]");
  if (numbers.size() == 3) {
    if (!(numbers[2] > 0.0f)) throw std::invalid_argument("DISTANCE must be > 0");
    spec.distance = numbers[2];
  }
  return spec;
}

Camera placeCamera(const CameraSpec& spec, const BoundingSphere& sphere, float aspect) {
  Camera camera;
  camera.yawDegrees = spec.yawDegrees;
  camera.pitchDegrees = spec.pitchDegrees;
  camera.fit(sphere, aspect);
  if (spec.distance) camera.distance = *spec.distance;
  return camera;
}

bool needsEveryBody(const RenderSettings& look) {
  return look.density || needsBodyField(look.colorBy) || look.shows(Overlay::Cells);
}

bool drawsFromParts(const RenderOptions& options) {
  return !needsEveryBody(options.settings) && options.select.empty();
}

bool drawsRanksParts(const Engine& engine, const RenderOptions& options, std::size_t bodies) {
  return engine.holdsParts(bodies) && drawsFromParts(options);
}

RenderSettings resolveRenderSettings(const RenderOptions& options, const State& state, double time,
                                     std::span<const float> field, const Ranks& ranks) {
  RenderSettings settings = options.settings;
  settings.colorRange =
      options.colorRange != "auto" ? parseColorRange(options.colorRange)
      : settings.density           ? glm::vec2(0.1f, 1.0f)  // fitted to the first picture
                         : autoColorRange(state, settings.colorBy, settings.logScale, field, ranks);
  measureBodies(settings, state, time, ranks);
  settings.background = parseBackground(options.background);
  return settings;
}

namespace {

// --colormap, --color-by, --color-scale, --hide-components, --color-range: how bodies are coloured.
void addColourOptions(CLI::App& command, RenderOptions& options) {
  RenderSettings& settings = options.settings;
  command.add_option("--colormap", settings.colormap, "colours for the coloured quantity")
      ->check(CLI::IsMember(colormapNames()))
      ->capture_default_str();
  command
      .add_option_function<std::string>(
          "--color-by",
          [&settings](const std::string& name) { settings.colorBy = *findColorBy(name); },
          "colour the bodies by " + colourChoicesHelp() + " (default: speed)")
      ->check(CLI::IsMember(colorByNames()));
  command
      .add_option_function<std::string>(
          "--color-scale",
          [&settings](const std::string& scale) { settings.logScale = scale == "log"; },
          "linear or log: how the colormap spans the quantity (default: linear; lz and energy, "
          "which "
          "change sign, have no log scale)")
      ->check(CLI::IsMember({"linear", "log"}));
  command
      .add_option_function<std::string>(
          "--hide-components",
          [&settings](const std::string& list) {
            settings.hiddenComponents = parseComponentList(list);
          },
          "components not drawn (they add no light), e.g. 0,2: GADGET's particle types, or a "
          "scene's "
          "(galaxies: 1 and 2)")
      ->check(parsedBy([](const std::string& t) { parseComponentList(t); }, "K[,K...]"));
  command
      .add_option(
          "--color-range", options.colorRange,
          "the quantity at the colormap's ends: LOW,HIGH, or auto (0 to the 99th "
          "percentile of the speeds, radii or densities, or to the largest mass; minus to plus "
          "the 99th percentile of |lz|; the energy's 1st to 99th percentile; on a log scale "
          "from the 1st percentile of the values above 0, or the smallest mass above 0)")
      ->check(parsedBy(
          [](const std::string& t) {
            if (t != "auto") parseColorRange(t);
          },
          "auto|LOW,HIGH"))
      ->capture_default_str();
}

// --trails, --show, --smoothing, --overlays, --cell-depth, --select: what is drawn of the bodies
// besides their sprites, and over them.
void addDrawingOptions(CLI::App& command, RenderOptions& options) {
  RenderSettings& settings = options.settings;
  addNumberOption(
      command, "--trails", settings.trailHalfLife,
      "SECONDS of simulated time: bodies leave trails whose light halves in that time (0: no "
      "trails). The trails stay where they were drawn in the picture (a turning camera smears "
      "them); shot and record add the light of every step, and shot then fits its camera and "
      "colours to the first state",
      nonNegative());
  command
      .add_option_function<std::string>(
          "--show", [&settings](const std::string& what) { settings.density = what == "density"; },
          "sprites (the default: each body a glowing sprite coloured by --color-by) or density "
          "(the "
          "projected density: the bodies' mass spread by a 2-D kernel of radius --smoothing, as "
          "surface "
          "density through the colormap on a log scale; --color-range then spans surface "
          "densities, "
          "auto fitting it to the picture; no trails)")
      ->check(CLI::IsMember({"sprites", "density"}));
  addNumberOption(
      command, "--smoothing", settings.smoothing,
      "--show density: the kernel's radius in scene units (0, the default: twice the 90th "
      "percentile of the distances from the centre of mass over the cube root of N)",
      nonNegative());
  command
      .add_option_function<std::string>(
          "--overlays",
          [&settings](const std::string& list) { settings.overlays = parseOverlayList(list); },
          "painted over the picture, comma-separated: " + overlayChoicesHelp() +
              "; all, or none (the default)")
      ->check(
          parsedBy([](const std::string& t) { parseOverlayList(t); }, "all|none|NAME[,NAME...]"));
  addIntegerOption(
      command, "--cell-depth", settings.cellDepth,
      "the cells overlay's deepest level: the tree's octree cells from the root's eighths (1) "
      "down to this level",
      1, kMostCellDepth);
  command
      .add_option(
          "--select", options.select,
          "ID[,ID...]: bodies picked by particle ID (at most 64), each ringed and its orbit drawn "
          "as "
          "it moves (record, shot --trails and the window draw every step or frame; the window "
          "lists them in its Selection table)")
      ->check(parsedBy(parseIdList, "ID[,ID...]"));
}

}  // namespace

void addRenderOptions(CLI::App& command, RenderOptions& options) {
  RenderSettings& settings = options.settings;
  addNumberOption(command, "--point-size", settings.pointSize,
                  "sprite diameter in pixels for a body at the camera's target distance",
                  positive());
  addNumberOption(command, "--brightness", settings.brightness,
                  "exposure: scales the light of every sprite", positive());
  addColourOptions(command, options);
  addDrawingOptions(command, options);
  // A fixed range for a log scale must lie above 0: said with the other usage errors, before any
  // work.
  command.parse_complete_callback([&options] {
    if (options.settings.logScale && isSignedQuantity(options.settings.colorBy))
      throw CLI::ValidationError("--color-scale",
                                 "log needs a quantity above 0, and --color-by " +
                                     std::string(colorByName(options.settings.colorBy)) +
                                     " changes sign");
    if (options.settings.logColours() && options.colorRange != "auto" &&
        !(parseColorRange(options.colorRange).x > 0.0f))
      throw CLI::ValidationError(
          "--color-range",
          std::string(options.settings.density ? "--show density" : "a log --color-scale") +
              " needs LOW above 0, got " + options.colorRange);
  });
  command.add_option("--background", options.background, "background colour R,G,B in [0, 1]")
      ->check(parsedBy(parseBackground, "R,G,B"))
      ->capture_default_str();
  command
      .add_option(
          "--camera", options.camera,
          "where the camera looks from: YAW,PITCH[,DISTANCE] in degrees and scene units, or "
          "a preset (" +
              presetList(true) +
              "). It aims at the bodies' centre of mass "
              "from the distance that fits every body in the picture, unless DISTANCE is "
              "given. Y is up; yaw 0, pitch 0 looks along -Z; pitch 90 looks straight down")
      ->check(parsedBy(parseCameraSpec, "PRESET|YAW,PITCH[,DISTANCE]"))
      ->capture_default_str();
}

}  // namespace nbody
