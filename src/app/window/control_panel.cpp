#include "app/window/control_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <imgui.h>
#include <imgui_stdlib.h>
#include <glm/geometric.hpp>

#include "app/window/recording_panel.h"
#include "engines/registry.h"
#include "io/snapshot.h"
#include "physics/method.h"
#include "physics/scenes.h"
#include "render/colormap.h"
#include "render/overlay_layout.h"
#include "render/tree_cells.h"

namespace nbody {
namespace {

// A combo over `names` that sets `value`; true when it changed.
bool comboOf(const char* label, std::string& value, const std::vector<std::string>& names,
             const std::vector<bool>& enabled = {}) {
  bool changed = false;
  if (ImGui::BeginCombo(label, value.c_str())) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      const bool allowed = enabled.empty() || enabled[i];
      const bool selected = names[i] == value;
      if (ImGui::Selectable(names[i].c_str(), selected,
                            allowed ? 0 : ImGuiSelectableFlags_Disabled) &&
          !selected) {
        value = names[i];
        changed = true;
      }
      if (selected) ImGui::SetItemDefaultFocus();
    }
    ImGui::EndCombo();
  }
  return changed;
}

void figuresSection(const PanelFigures& f) {
  ImGui::Text("%.1f iterations/s", f.iterationsPerSecond);
  ImGui::Text("%.2f GFLOPS   %.3f G interactions/s", f.gflops, f.interactionsPerSecond * 1e-9);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "%g flop per interaction, interactions per force evaluation as nbody bench counts them",
        kFlopPerInteraction);
  if (f.gpuMillisecondsPerStep >= 0)
    ImGui::Text("GPU %.3f ms/step, %d per frame", f.gpuMillisecondsPerStep, f.stepsPerFrame);
  else
    ImGui::Text("GPU ms/step: n/a, %d steps per frame", f.stepsPerFrame);
  if (f.drawMilliseconds >= 0)
    ImGui::Text("frame %.1f ms (drawing %.2f ms)", f.frameMilliseconds, f.drawMilliseconds);
  else
    ImGui::Text("frame %.1f ms", f.frameMilliseconds);
  if (!f.timeSplit.empty()) {
    std::string split;
    for (const auto& [part, seconds] : f.timeSplit)
      split += (split.empty() ? "" : ", ") + part + " " +
               formatNumber(std::round(seconds * 1e5) / 1e2) + " ms";
    ImGui::TextWrapped("of a step: %s", split.c_str());
  }
  if (!f.ranks.empty()) ImGui::TextWrapped("%s", f.ranks.c_str());
  ImGui::Text("step %lld, t = %.4g", f.step, f.time);
  ImGui::TextDisabled("%s", f.renderer.c_str());
  if (f.engineDevice != f.renderer) ImGui::TextDisabled("engine on %s", f.engineDevice.c_str());
}

// A combo over an option's choices, or a slider for a number option; true when `value` changed.
bool optionControl(const EngineOption& option, std::string& value) {
  if (!option.range) return comboOf(option.name.c_str(), value, option.choices);
  float number = 0.0f;
  try {
    number = std::stof(value);
  } catch (const std::exception&) {  // "auto" or another word: the slider starts at the low end
    number = float(option.range->low);
  }
  // Significant digits: the value as set (the tree's accuracy 0.00065 showed as "0.001").
  if (!ImGui::SliderFloat(option.name.c_str(), &number, float(option.range->low),
                          float(option.range->high), "%.6g", ImGuiSliderFlags_AlwaysClamp))
    return false;
  value = formatNumber(number);
  return true;
}

// Engines the registry says keep an interactive pace at this N; the others are shown, disabled.
void engineSection(RunChoice& run, const PanelFigures& f) {
  std::vector<bool> allowed;
  for (const EngineEntry& entry : engineRegistry())
    allowed.push_back(entry.interactiveAt(run.scene.options.bodyCount));
  comboOf("engine", run.engine, engineNames(), allowed);
  if (!findEngine(run.engine)->interactiveAt(run.scene.options.bodyCount))
    ImGui::TextColored(ImVec4(1, 0.7f, 0.2f, 1), "the %s engine is slow at N = %zu",
                       run.engine.c_str(), run.scene.options.bodyCount);
  comboOf("method", run.method, methodNames());
  for (const EngineOption& option : f.engineOptions) {
    std::string value =
        run.engineSettings.count(option.name) ? run.engineSettings[option.name] : option.value;
    if (optionControl(option, value)) run.engineSettings[option.name] = value;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", option.description.c_str());
  }
}

// The scene, N, seed and the parameters the scene reads (these start the scene over).
void sceneSection(RunChoice& run, const PanelFigures& f) {
  SceneChoice& scene = run.scene;
  comboOf("scene", scene.name, sceneNames());
  std::vector<std::string> sizeNames;
  for (std::size_t n : f.bodyChoices) sizeNames.push_back(std::to_string(n));
  std::string size = std::to_string(scene.options.bodyCount);
  if (comboOf("N", size, sizeNames)) {
    scene.options.bodyCount = std::size_t(std::stoull(size));
    // An engine too slow for the new N gives way to the first one that is not.
    if (!findEngine(run.engine)->interactiveAt(scene.options.bodyCount))
      for (const EngineEntry& entry : engineRegistry())
        if (entry.interactiveAt(scene.options.bodyCount)) {
          run.engine = entry.name;
          break;
        }
  }
  int seed = int(scene.options.seed);
  if (ImGui::InputInt("seed", &seed, 1, 10, ImGuiInputTextFlags_EnterReturnsTrue) && seed >= 0)
    scene.options.seed = std::uint64_t(seed);
  for (const SceneParameter& parameter : sceneParameters()) {
    if (!parameter.scenes.empty() && std::find(parameter.scenes.begin(), parameter.scenes.end(),
                                               scene.name) == parameter.scenes.end())
      continue;
    float value = float(scene.options.*parameter.field);
    if (ImGui::SliderFloat(parameter.name.c_str(), &value, float(parameter.low),
                           float(parameter.high), "%.6g", ImGuiSliderFlags_AlwaysClamp))
      scene.options.*parameter.field = value;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", parameter.description.c_str());
  }
}

void stepSection(StepParams& step) {
  float dt = float(step.dt), softening = float(step.softening), gravity = float(step.gravity);
  if (ImGui::DragFloat("dt", &dt, 1e-5f, 1e-6f, 0.1f, "%.6g", ImGuiSliderFlags_Logarithmic) &&
      dt > 0)
    step.dt = dt;
  if (ImGui::DragFloat("softening", &softening, 1e-4f, 0.0f, 1.0f, "%.6g") && softening >= 0)
    step.softening = softening;
  if (ImGui::DragFloat("G", &gravity, 0.01f, 1e-3f, 100.0f, "%.6g") && gravity > 0)
    step.gravity = gravity;
  if (!step.potential) return;
  ImGui::TextWrapped("external potential: %s", step.potential->summary().c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", step.potential->spec().c_str());
}

void runControlsSection(AppSettings& s, const PanelFigures& f) {
  bool autoSteps = s.stepsPerFrame == 0;
  if (ImGui::Checkbox("auto", &autoSteps))
    s.stepsPerFrame = autoSteps ? 0 : std::max(1, f.stepsPerFrame);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "as many steps per frame as fill the frame: the simulation runs near full speed");
  ImGui::SameLine();
  if (autoSteps) {
    ImGui::Text("steps/frame: %d", f.stepsPerFrame);
  } else {
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    ImGui::SliderInt("steps/frame", &s.stepsPerFrame, 1, 256, "%d", ImGuiSliderFlags_Logarithmic);
    s.stepsPerFrame = std::max(1, s.stepsPerFrame);
  }
  if (ImGui::Button(s.paused ? "Run (Space)" : "Pause (Space)")) s.paused = !s.paused;
  ImGui::SameLine();
  if (ImGui::Button("Step (N)")) s.requests.ask(Request::SingleStep);
  ImGui::SameLine();
  if (ImGui::Button("Reset (R)")) s.requests.ask(Request::Reset);
}

void simulationSection(AppSettings& s, const PanelFigures& f) {
  engineSection(s.run, f);
  sceneSection(s.run, f);
  stepSection(s.run.step);
  if (!f.series.open) runControlsSection(s, f);  // while a series plays, its own controls steer
}

// One drift over the history: its log10 as a line, the latest value written over it.
void driftPlot(const char* label, const ConservationHistory& history,
               double ConservationSample::*quantity, const char* latestFormat) {
  const std::vector<float> series = history.log10Series(quantity);
  if (series.empty()) return;
  char latest[64];
  std::snprintf(latest, sizeof latest, latestFormat, history.samples().back().*quantity);
  // Whole decades, at least one, so that rounding noise does not fill the plot.
  const auto [low, high] = std::minmax_element(series.begin(), series.end());
  const float bottom = std::floor(*low), top = std::max(std::ceil(*high), bottom + 1.0f);
  ImGui::PlotLines(label, series.data(), int(series.size()), 0, latest, bottom, top,
                   ImVec2(ImGui::GetFontSize() * 22.0f, ImGui::GetTextLineHeight() * 3.0f));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("log10, from %.0f (bottom) to %.0f (top)", bottom, top);
}

void conservationContents(const ConservationHistory& history) {
  if (!history.reference()) {
    ImGui::TextDisabled("measuring E0 ...");
    return;
  }
  ImGui::Text("E0 = %.6g at step %lld", history.reference()->total(), history.referenceStep());
  if (history.samples().empty()) {
    ImGui::TextDisabled("no drift yet (it is measured a few times a second while running)");
    return;
  }
  const ConservationSample& first = history.samples().front();
  const ConservationSample& last = history.samples().back();
  driftPlot("log10 |dE/E0|", history, &ConservationSample::energyDrift, "|dE/E0| = %.3e");
  driftPlot("log10 |P-P0|", history, &ConservationSample::momentumDrift, "|P-P0| = %.3e");
  driftPlot("log10 |L-L0|", history, &ConservationSample::angularMomentumDrift, "|L-L0| = %.3e");
  ImGui::TextDisabled("%zu samples, steps %lld to %lld (t = %.4g to %.4g)",
                      history.samples().size(), first.step, last.step, first.time, last.time);
}

void accuracySection(AppSettings& s, const PanelFigures& f) {
  if (ImGui::Button("Check accuracy")) s.requests.ask(Request::CheckAccuracy);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "relative force error of a sample of bodies against direct summation in double precision");
  if (!f.accuracy.empty()) {
    ImGui::SameLine();
    ImGui::TextWrapped("%s", f.accuracy.c_str());
  }
}

void snapshotSection(AppSettings& s) {
  if (ImGui::Button("Save snapshot")) s.requests.ask(Request::SaveSnapshot);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "writes nbody-YYYYMMDD-HHMMSS with the format's extension: %s; while the ranks hold the "
        "bodies apart, a GADGET HDF5 file a rank",
        outputFormatsHelp().c_str());
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90);
  comboOf("format", s.saveFormat, outputExtensions());
  ImGui::InputTextWithHint("##snapshot path", "snapshot to load", &s.snapshotPath);
  ImGui::SameLine();
  if (ImGui::Button("Load snapshot") && !s.snapshotPath.empty())
    s.requests.ask(Request::LoadSnapshot);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "continue from this file: .nbody, CSV, TIPSY, GADGET-2 binary or GADGET HDF5 (G from its "
        "units)");
}

void seriesControls(SeriesChoice& r, Requests& asks, const SeriesFigures& f) {
  if (ImGui::Button(f.playing ? "Pause (Space)" : "Play (Space)"))
    asks.ask(Request::ToggleSeriesPlaying);
  ImGui::SameLine();
  if (ImGui::ArrowButton("##back", ImGuiDir_Left)) asks.ask(Request::StepSeries, -1);
  ImGui::SameLine();
  if (ImGui::ArrowButton("##forward", ImGuiDir_Right)) asks.ask(Request::StepSeries, 1);
  ImGui::SameLine();
  ImGui::Text("%zu of %zu", f.index + 1, f.size);
  int shown = int(f.index);
  if (ImGui::SliderInt("snapshot", &shown, 0, int(f.size) - 1, "%d"))
    asks.ask(Request::SeekSeries, shown);
  float rate = float(r.rate);
  if (ImGui::SliderFloat("snapshots/s", &rate, 0.5f, 120.0f, "%.1f", ImGuiSliderFlags_Logarithmic))
    r.rate = std::max(0.5, double(rate));
  ImGui::TextWrapped("%s", f.file.c_str());
  if (!f.problem.empty()) ImGui::TextColored(ImVec4(1, 0.35f, 0.3f, 1), "%s", f.problem.c_str());
  if (ImGui::Button("Continue simulating from here")) asks.ask(Request::ContinueHere);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("closes the series; the snapshot shown runs on with the panel's settings");
}

// Plays back what `simulate --snapshot-every` wrote, or any series of files nbody reads.
void seriesSection(SeriesChoice& r, Requests& asks, const SeriesFigures& f) {
  if (!f.available) {
    ImGui::TextDisabled("a series plays in one process, not under mpiexec");
    return;
  }
  if (f.open) seriesControls(r, asks, f);
  ImGui::InputTextWithHint("##series pattern", "run/step-*.nbody", &r.pattern);
  ImGui::SameLine();
  if (ImGui::Button("Open series") && !r.pattern.empty()) asks.ask(Request::OpenSeries);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "plays the snapshot files this pattern names (* ? [...]), in the order of their numbers");
}

void cameraKeyframeList(Requests& asks, const CameraPathFigures& f) {
  for (std::size_t k = 0; k < f.keyframes.size(); ++k) {
    const CameraKeyframe& key = f.keyframes[k];
    ImGui::PushID(int(k));
    if (ImGui::SmallButton("x")) asks.ask(Request::RemoveKeyframe, std::int64_t(k));
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("remove this keyframe (the others keep their times)");
    ImGui::SameLine();
    ImGui::Text("%7.2f s  yaw %.1f  pitch %.1f  distance %.4g", key.seconds, key.yawDegrees,
                key.pitchDegrees, key.distance);
    ImGui::PopID();
  }
}

// Keyframes for movies: the camera shown, added with K; the path the window and `record
// --camera-path` follow, saved to and loaded from its text file.
void cameraPathSection(CameraPathChoice& r, Requests& asks, const CameraPathFigures& f,
                       bool files) {
  if (ImGui::Button("Add keyframe (K)")) asks.ask(Request::AddKeyframe);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110);
  float spacing = float(r.spacingSeconds);
  if (ImGui::DragFloat("s after the last", &spacing, 0.05f, 0.1f, 600.0f, "%.2f"))
    r.spacingSeconds = std::max(0.1, double(spacing));
  cameraKeyframeList(asks, f);
  if (!f.keyframes.empty()) {
    if (ImGui::Button(f.playing ? "Stop path" : "Play path")) asks.ask(Request::TogglePath);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("the camera follows the path from its first keyframe");
    ImGui::SameLine();
    if (ImGui::Button("Clear##path"))
      asks.ask(Request::ClearKeyframes);  // one ID of its own: the selection has a Clear too
  }
  if (!files) return;
  ImGui::InputTextWithHint("##camera path file", "camera-path.txt", &r.file);
  ImGui::SameLine();
  if (ImGui::Button("Save path") && !r.file.empty()) asks.ask(Request::SavePath);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the file `record --camera-path` and `run --camera-path` take");
  ImGui::SameLine();
  if (ImGui::Button("Load path") && !r.file.empty()) asks.ask(Request::LoadPath);
}

// What colours the bodies, and per component a colour and whether it is drawn.
void colourChoice(RenderSettings& r) {
  int colorBy = int(r.colorBy), placed = 0;
  for (const std::string& name : colorByNames()) {
    const ColorBy choice = *findColorBy(name);
    if (placed++ % 3 != 0) ImGui::SameLine();
    ImGui::RadioButton(("by " + name).c_str(), &colorBy, int(choice));
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", std::string(colorByMeaning(choice)).c_str());
  }
  r.colorBy = ColorBy(colorBy);
  ImGui::SameLine();
  const bool signedQuantity = isSignedQuantity(r.colorBy);
  if (signedQuantity) r.logScale = false;  // it changes sign: no log scale
  ImGui::BeginDisabled(signedQuantity);
  ImGui::Checkbox("log", &r.logScale);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip(
        signedQuantity ? "%s changes sign: no log scale" : "the colormap spans log(%s)",
        std::string(colorByName(r.colorBy)).c_str());
  if (!ImGui::TreeNode("components")) return;
  for (int k = 0; k < kComponentCount; ++k) {
    ImGui::PushID(k);
    bool shown = (r.hiddenComponents & (1u << k)) == 0;
    if (ImGui::Checkbox("##shown", &shown)) r.hiddenComponents ^= 1u << k;
    ImGui::SameLine();
    ImGui::ColorEdit3(std::to_string(k).c_str(), &r.componentColors[std::size_t(k)].x,
                      ImGuiColorEditFlags_NoInputs);
    ImGui::PopID();
    if (k % 3 != 2) ImGui::SameLine();
  }
  ImGui::TreePop();
}

// The colormap's ends: fitted to the shown state, or where they are dragged to. A range a log scale
// cannot span (from 0 or below) goes back to the fitted one.
void colourRange(AppSettings& s) {
  RenderSettings& r = s.render;
  if (r.colorBy == ColorBy::Component && !r.density)
    return;  // the components' own colours: no range
  if (r.logColours() && !(r.colorRange.x > 0.0f)) s.automaticColorRange = true;
  ImGui::Checkbox("auto range", &s.automaticColorRange);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "fitted to the state when the colouring changes or the run starts over; off: drag the "
        "ends");
  ImGui::SameLine();
  if (s.automaticColorRange) {
    ImGui::TextDisabled("%.4g to %.4g", double(r.colorRange.x), double(r.colorRange.y));
    return;
  }
  glm::vec2 range = r.colorRange;
  const float speed = std::max(1e-6f, 0.005f * (std::abs(range.x) + std::abs(range.y)));
  if (ImGui::DragFloatRange2("##range", &range.x, &range.y, speed, 0.0f, 0.0f, "%.4g", "%.4g") &&
      range.y > range.x && (!r.logColours() || range.x > 0.0f))
    r.colorRange = range;
}

// A switch per overlay painted over the picture (and into screenshots and movies).
void overlaySwitches(RenderSettings& r) {
  ImGui::TextUnformatted("overlays");
  for (int k = 0; k < kOverlayCount; ++k) {
    const std::uint32_t bit = overlayBit(Overlay(k));
    bool on = (r.overlays & bit) != 0;
    ImGui::SameLine();
    if (ImGui::Checkbox(std::string(overlayName(Overlay(k))).c_str(), &on)) r.overlays ^= bit;
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", std::string(overlayMeaning(Overlay(k))).c_str());
  }
  if (r.shows(Overlay::Cells)) ImGui::SliderInt("cell depth", &r.cellDepth, 1, kMostCellDepth);
}

// Sprites, or the projected density with its kernel's radius (0: fitted to the bodies).
void showChoice(RenderSettings& r) {
  int density = r.density ? 1 : 0;
  ImGui::RadioButton("sprites", &density, 0);
  ImGui::SameLine();
  ImGui::RadioButton("density", &density, 1);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the projected density: the bodies' mass spread by a kernel, on a log scale");
  r.density = density == 1;
  if (!r.density) return;
  ImGui::SameLine();
  bool fitted = r.smoothing <= 0.0f;
  if (ImGui::Checkbox("fitted", &fitted)) r.smoothing = fitted ? 0.0f : r.fittedSmoothing;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the kernel's radius from the bodies' spread and N");
  if (fitted) return;
  ImGui::SliderFloat("smoothing", &r.smoothing, r.fittedSmoothing / 30.0f,
                     r.fittedSmoothing * 30.0f, "%.4g", ImGuiSliderFlags_Logarithmic);
}

void viewSection(AppSettings& s) {
  RenderSettings& r = s.render;
  ImGui::SliderFloat("point size", &r.pointSize, 0.5f, 32.0f, "%.1f px",
                     ImGuiSliderFlags_Logarithmic);
  ImGui::SliderFloat("brightness", &r.brightness, 0.05f, 20.0f, "%.2f",
                     ImGuiSliderFlags_Logarithmic);
  comboOf("colormap", r.colormap, colormapNames());
  showChoice(r);
  colourChoice(r);  // its components' switches hide them from the density too
  colourRange(s);
  overlaySwitches(r);
  ImGui::Checkbox("histogram", &s.histogram.shown);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("a window counting the bodies by a quantity, at the top right");
  ImGui::SameLine();
  ImGui::Checkbox("vsync", &s.vsync);
  ImGui::SameLine();
  if (ImGui::Button("Fit camera")) s.requests.ask(Request::FitCamera);
  ImGui::SameLine();
  if (ImGui::Button("Hide (H)")) s.showPanel = false;
}

// In a window of its own at the bottom right, out of the way of the panel's switches and of the
// bodies at the centre. It does not take the focus from the panel when it appears.
void conservationWindow(const ConservationHistory& history) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(display.x - 10, display.y - 10), ImGuiCond_Always, ImVec2(1, 1));
  ImGui::SetNextWindowBgAlpha(0.75f);
  ImGui::Begin("conservation", nullptr,
               ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoFocusOnAppearing);
  conservationContents(history);
  ImGui::End();
}

// The bodies counted by the chosen quantity, at the top right; the choice beside the bars.
void histogramWindow(AppSettings::HistogramChoice& choice, const Histogram& histogram) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(display.x - 10, 10), ImGuiCond_Always, ImVec2(1, 0));
  ImGui::SetNextWindowBgAlpha(0.75f);
  ImGui::Begin("histogram", &choice.shown,
               ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoFocusOnAppearing);
  int quantity = int(choice.quantity);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
  if (ImGui::BeginCombo("##quantity", std::string(colorByName(choice.quantity)).c_str())) {
    for (const std::string& name : colorByNames()) {
      const ColorBy option = *findColorBy(name);
      if (ImGui::Selectable(name.c_str(), int(option) == quantity)) quantity = int(option);
    }
    ImGui::EndCombo();
  }
  choice.quantity = ColorBy(quantity);
  ImGui::SameLine();
  ImGui::BeginDisabled(isSignedQuantity(choice.quantity) || choice.quantity == ColorBy::Component);
  ImGui::Checkbox("log", &choice.logScale);
  ImGui::EndDisabled();
  float most = 0.0f;
  for (float count : histogram.counts) most = std::max(most, count);
  ImGui::PlotHistogram("##counts", histogram.counts.data(), int(histogram.counts.size()), 0,
                       nullptr, 0.0f, most * 1.05f,
                       ImVec2(ImGui::GetFontSize() * 22.0f, ImGui::GetFontSize() * 6.0f));
  if (histogram.quantity == ColorBy::Component)
    ImGui::TextDisabled("components 0 to %d, at step %lld", kComponentCount - 1, histogram.step);
  else
    ImGui::TextDisabled("%.4g to %.4g%s, %zu beyond; step %lld", histogram.low, histogram.high,
                        histogram.logScale ? " (log)" : "", histogram.beyond, histogram.step);
  ImGui::End();
}

// The picked bodies: ID, component, position and speed each, and the camera's aim at them.
void selectionSection(AppSettings& settings, const std::vector<SelectedBody>& bodies) {
  if (bodies.empty()) {
    ImGui::TextDisabled("click a body to pick it; Shift+drag: a box; Ctrl: add");
    return;
  }
  if (ImGui::Button("Centre on them")) settings.requests.ask(Request::CentreOnSelection);
  ImGui::SameLine();
  ImGui::Checkbox("follow", &settings.followSelection);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the camera aims at their mean position every frame");
  ImGui::SameLine();
  if (ImGui::Button("Clear##selection")) settings.requests.ask(Request::ClearSelection);
  const ImGuiTableFlags flags =
      ImGuiTableFlags_Borders | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("selected", 4, flags,
                         ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 7)))
    return;
  for (const char* heading : {"ID", "comp.", "position", "speed"}) ImGui::TableSetupColumn(heading);
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableHeadersRow();
  for (const SelectedBody& body : bodies) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%llu", static_cast<unsigned long long>(body.id));
    ImGui::TableNextColumn();
    ImGui::Text("%d", int(body.component));
    ImGui::TableNextColumn();
    if (body.found)
      ImGui::Text("%.4g, %.4g, %.4g", double(body.position.x), double(body.position.y),
                  double(body.position.z));
    else
      ImGui::TextDisabled("not in this state");
    ImGui::TableNextColumn();
    if (body.found) ImGui::Text("%.4g", double(glm::length(body.velocity)));
  }
  ImGui::EndTable();
}

}  // namespace

void drawControlPanel(AppSettings& settings, const PanelFigures& figures) {
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(380, 0), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowBgAlpha(0.75f);
  ImGui::Begin("nbody-gl");
  ImGui::PushItemWidth(-ImGui::GetFontSize() * 10.0f);  // room for the longest label
  figuresSection(figures);
  if (!figures.warning.empty())
    ImGui::TextColored(ImVec4(1, 0.35f, 0.3f, 1), "%s", figures.warning.c_str());
  if (ImGui::CollapsingHeader("Simulation", ImGuiTreeNodeFlags_DefaultOpen)) {
    simulationSection(settings, figures);
    accuracySection(settings, figures);
  }
  if (figures.files &&
      ImGui::CollapsingHeader("Series", figures.series.open ? ImGuiTreeNodeFlags_DefaultOpen : 0))
    seriesSection(settings.series, settings.requests, figures.series);
  if (ImGui::CollapsingHeader("View", ImGuiTreeNodeFlags_DefaultOpen)) viewSection(settings);
  if (figures.selection &&
      ImGui::CollapsingHeader("Selection",
                              figures.selection->empty() ? 0 : ImGuiTreeNodeFlags_DefaultOpen))
    selectionSection(settings, *figures.selection);
  if (ImGui::CollapsingHeader(
          "Camera path", figures.cameraPath.keyframes.empty() ? 0 : ImGuiTreeNodeFlags_DefaultOpen))
    cameraPathSection(settings.cameraPath, settings.requests, figures.cameraPath, figures.files);
  if (ImGui::CollapsingHeader("Trails and recording", ImGuiTreeNodeFlags_DefaultOpen))
    trailsAndRecordingSection(settings, figures);
  if (figures.files) {
    if (ImGui::Button("Screenshot (P)")) settings.requests.ask(Request::Screenshot);
    ImGui::SameLine();
    snapshotSection(settings);
  }
  if (!figures.message.empty()) ImGui::TextWrapped("%s", figures.message.c_str());
  ImGui::TextDisabled("drag: orbit, right drag: pan, wheel: zoom; click: pick; Esc quits");
  ImGui::PopItemWidth();
  ImGui::End();
  if (figures.conservation) conservationWindow(*figures.conservation);
  if (figures.histogram) histogramWindow(settings.histogram, *figures.histogram);
}

}  // namespace nbody
