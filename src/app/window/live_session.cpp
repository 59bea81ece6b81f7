#include "app/window/live_session.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <glad/gl.h>
#include <imgui.h>

#include "app/live/camera_path_editor.h"
#include "app/live/conservation_history.h"
#include "app/live/frame_orders.h"
#include "app/live/frame_statistics.h"
#include "app/live/live_simulation.h"
#include "app/live/parts_calls.h"
#include "app/live/recount_clock.h"
#include "app/live/series_playback.h"
#include "app/run/engine_session.h"
#include "app/run/rank_agreement.h"
#include "app/run/stop_signals.h"
#include "app/window/control_panel.h"
#include "app/window/panel_clicks.h"
#include "app/window/recording_panel.h"
#include "app/window/window_capture.h"
#include "app/window/window_input.h"
#include "app/window/window_recorder.h"
#include "diagnostics/engine_diagnostics.h"
#include "diagnostics/force_accuracy.h"
#include "engines/gpu_capacity.h"
#include "engines/registry.h"
#include "io/gadget.h"
#include "io/output_file.h"
#include "io/png.h"
#include "parallel/ranks.h"
#include "render/body_field.h"
#include "render/camera_path.h"
#include "render/overlay_painter.h"
#include "render/picking.h"
#include "render/point_sprite_renderer.h"
#include "render/selection.h"
#include "render/state_textures.h"
#include "render/tree_cells.h"
#include "util/comma_list.h"
#include "util/printable_text.h"

namespace nbody {
namespace {

constexpr int kHistogramBins = 48;

AppSettings initialSettings(const WindowOptions& options,
                            const std::optional<RunStart>& loadFirst) {
  AppSettings settings = initialAppSettings(options);
  if (loadFirst)
    settings.run.scene.options.bodyCount = loadFirst->bodies;  // no scene made only to be replaced
  return settings;
}

// The requests that read or write files: a session without files (the web page) drops them.
void dropFileRequests(Requests& asks) {
  for (Request kind :
       {Request::SaveSnapshot, Request::LoadSnapshot, Request::Screenshot, Request::ToggleRecording,
        Request::OpenSeries, Request::SavePath, Request::LoadPath})
    asks.take(kind);
}

float aspectOf(glm::ivec2 size) { return size.y > 0 ? float(size.x) / float(size.y) : 1.0f; }

// The N the panel offers: powers of two (and of four beyond a million) that some engine runs at an
// interactive pace and `engine` holds on this GPU, and the N running now.
std::vector<std::size_t> bodyChoicesFor(const Engine& engine, std::size_t current) {
  std::vector<std::size_t> choices;
  for (std::size_t n = 256; n <= (std::size_t(1) << 28); n *= n < (std::size_t(1) << 20) ? 2 : 4) {
    const bool someEngine =
        std::any_of(engineRegistry().begin(), engineRegistry().end(),
                    [n](const EngineEntry& entry) { return entry.interactiveAt(n); });
    if (!someEngine || n == 512) continue;
    try {
      engine.checkCapacity(n);
      choices.push_back(n);
    } catch (const std::runtime_error&) {
      break;
    }
  }
  if (std::find(choices.begin(), choices.end(), current) == choices.end()) {
    choices.push_back(current);
    std::sort(choices.begin(), choices.end());
  }
  return choices;
}

// --play's series, read before the window opens so that a bad pattern or file fails first. With
// --frames (scripts, tests) playing waits for each file: what a frame shows then depends on the
// rate and the frames' times, not on the disk (at a rate above the frame rate, frame K shows
// snapshot K).
SeriesPlayback startingSeries(const WindowOptions& options) {
  if (options.play.empty()) return {};
  return SeriesPlayback(options.play, options.playRate, options.frames > 0);
}

// "a,b,c", or "none".
std::string listOrNone(const std::vector<std::string>& names) {
  return names.empty() ? "none" : joined(names, ",");
}

// The view's switches in one line (--print-stats): what the panel shows and how the bodies look.
std::string describeView(const AppSettings& s, std::size_t keyframes, std::size_t selected) {
  const RenderSettings& r = s.render;
  std::string text = r.density ? "density, smoothing " +
                                     (r.smoothing > 0.0f ? formatNumber(r.smoothing) : "fitted")
                               : std::string("sprites");
  text += ", colour by " + std::string(colorByName(r.colorBy)) + (r.logScale ? " log" : " linear") +
          (s.automaticColorRange ? ", range auto" : ", range set");
  std::vector<std::string> hidden, overlays;
  for (int k = 0; k < kComponentCount; ++k)
    if (r.hiddenComponents & (1u << k)) hidden.push_back(std::to_string(k));
  for (int k = 0; k < kOverlayCount; ++k)
    if (r.shows(Overlay(k))) overlays.emplace_back(overlayName(Overlay(k)));
  text += ", hidden components " + listOrNone(hidden) + ", overlays " + listOrNone(overlays);
  text += s.histogram.shown ? ", histogram of " + std::string(colorByName(s.histogram.quantity)) +
                                  (s.histogram.logScale ? " log" : " linear")
                            : ", no histogram";
  text += ", selected " + std::to_string(selected) + (s.followSelection ? " followed" : "");
  text += ", camera keyframes " + std::to_string(keyframes);
  return text;
}

// The last histogram counted, where one was: its range and how many bodies it counted in all.
void printHistogram(const Histogram& histogram) {
  if (histogram.step < 0) return;
  double inBins = 0.0;
  for (const float count : histogram.counts) inBins += double(count);
  std::printf(
      "run: histogram at step %lld: %.17g bodies in %zu bins from %.9g to %.9g, %zu beyond\n",
      histogram.step, inBins, histogram.counts.size(), histogram.low, histogram.high,
      histogram.beyond);
}

// --screenshot's file, opened before the window so that an unwritable path fails first; written
// at the last frame, and removed if the window ends before it.
std::unique_ptr<OutputFile> openScreenshot(const WindowOptions& options) {
  if (options.screenshot.empty()) return nullptr;
  return std::make_unique<OutputFile>(options.screenshot);
}

}  // namespace

struct SessionInputs {
  PanelClicks clicks;                 // NBODY_PANEL_CLICKS's script, for tests
  std::optional<RunStart> loadFirst;  // --load's: the whole, or this rank's share
  SeriesPlayback series;              // --play's, or the panel's; none: a live run
  std::optional<CameraPath> cameraPath;
  std::unique_ptr<OutputFile> screenshotFile;
};

std::shared_ptr<SessionInputs> readSessionInputs(const WindowOptions& options) {
  auto inputs = std::make_shared<SessionInputs>();
  inputs->clicks = PanelClicks::fromEnvironment();
  inputs->loadFirst = startingRun(options, true);
  inputs->series = startingSeries(options);
  if (!options.cameraPath.empty()) inputs->cameraPath = readCameraPathFile(options.cameraPath);
  inputs->screenshotFile = openScreenshot(options);
  return inputs;
}

class LiveSession::Impl {
 public:
  Impl(const WindowOptions& options, SessionInputs& inputs, SessionFrontEnd& frontEnd);
  bool runFrame();  // false once the session should end
  // Completes a recording still running (quitting while filming keeps the movie); a stop found by
  // `beforePublishing` abandons it.
  void finishRecording(const std::function<void()>& beforePublishing);
  bool recording() const { return recorder_.recording(); }
  void printStats() const;
  int exitCode() const { return exitCode_; }
  long long frames() const { return stats_.frames(); }
  void checkEveryClickCame() const { clicks_.afterLastFrame(frames()); }
  const std::string& renderer() const { return figures_.renderer; }
  bool screenshotWritten() const { return screenshotWritten_; }
  Progress progress() const;

 private:
  Engine& engine() { return simulation_.engine(); }
  // The ranks hold the bodies apart (LiveSimulation::holdsPartsApart): pictures and measures come
  // from every rank's part (parts_calls.h), and what needs every body in one place is refused.
  bool apart() const { return simulation_.holdsPartsApart(); }
  void keepToWhatPartsShow();
  std::optional<std::size_t> firstNonFiniteBody();
  bool takeInput();
  void showPanel();
  void applySettings();
  bool applySimulationSettings();
  bool carryOutSnapshotRequests();
  void saveInParts();
  void carryOutCameraPathRequests();
  void toggleCameraPath();
  void followCameraPath();
  void playSeries();
  void startedOver();
  void pickBodies(const PickRequest& request);
  void followSelection();
  void measureConservation();
  void recountFigures();
  int plannedSteps();
  // Vsync on a display that holds each frame to its refresh periods.
  bool heldToRefresh() const { return settings_.vsync && front_.refreshRate() > 0.0; }
  void step(int steps);
  void describeExchange(int steps);
  void stopIfNonFinite(int steps);
  void draw();
  void drawBodies();
  void writeScreenshot(bool lastFrame);
  void refreshColorRange(const State& state);
  // The bodies as the engine holds them now, with `quantity`'s field measured (where it needs one
  // and this state's was not measured yet) and attached; none where it cannot be measured (the
  // message says why).
  std::optional<GpuStateView> bodiesWithField(ColorBy quantity);
  std::vector<float> fieldValues(ColorBy quantity);
  void checkAccuracy();

  const WindowOptions& options_;
  SessionFrontEnd& front_;
  PanelClicks& clicks_;  // NBODY_PANEL_CLICKS's script, for tests
  std::optional<RunStart>& loadFirst_;
  SeriesPlayback& series_;  // --play's, or the panel's; none: a live run
  std::optional<CameraPath>&
      cameraPath_;  // the path the camera follows now: --camera-path's, or the panel's
  double cameraPathStart_ = 0.0;       // the frame clock's seconds at its first keyframe
  CameraPathEditor cameraPathEditor_;  // the panel's keyframes
  double playedUntil_ = 0.0;           // the frame clock's seconds at the last playSeries
  std::unique_ptr<OutputFile>& screenshotFile_;
  KeyPresses keys_;
  AppSettings settings_;
  AppSettings applied_;  // the settings as last applied: what changed since is what to apply
  LiveSimulation simulation_;
  PointSpriteRenderer renderer_;
  bool fitDensityRange_ = false;  // the density's automatic range is fitted at the next picture
  OverlayPainter overlays_;
  Selection selection_;
  BodyReader bodyReader_;  // the picked bodies, every frame
  Histogram histogram_;
  AppSettings::HistogramChoice histogramCounted_;  // what histogram_ counts
  RecountClock histogramClock_;
  std::vector<TreeCell> cells_;  // for the cells overlay
  int cellsDepth_ = 0;           // what cells_ holds
  RecountClock cellsClock_;
  UploadedStateTextures
      cpuStateTextures_;  // the state of an engine that keeps it off the GPU, for the renderer
  BodyField bodyField_;   // colours and histograms by energy or density: what they need
  struct MeasuredField {
    long long step;
    double time;
    ColorBy quantity;
    double gravity, softening;  // the potential's
    bool operator==(const MeasuredField&) const = default;
  };
  std::optional<MeasuredField> measuredField_;  // what bodyField_ holds
  WindowRecorder recorder_;
  FrameStatistics stats_;
  ConservationHistory conservation_;
  EngineDiagnostics diagnostics_;
  Camera camera_;
  DrawTarget target_;
  PanelFigures figures_;
  int exitCode_ = 0;
  bool quitting_ = false;           // a Quit request was made: the next frame does not begin
  bool screenshotWritten_ = false;  // --screenshot's, at the last frame
};

LiveSession::Impl::Impl(const WindowOptions& options, SessionInputs& inputs,
                        SessionFrontEnd& frontEnd)
    : options_(options),
      front_(frontEnd),
      clicks_(inputs.clicks),
      loadFirst_(inputs.loadFirst),
      series_(inputs.series),
      cameraPath_(inputs.cameraPath),
      screenshotFile_(inputs.screenshotFile),
      settings_(initialSettings(options, loadFirst_)),
      simulation_(settings_, drawsFromParts(options.render)) {
  front_.setVsync(settings_.vsync);
  if (!findEngine(settings_.run.engine)->interactiveAt(settings_.run.scene.options.bodyCount))
    std::fprintf(stderr, "run: the %s engine is slow at N = %zu\n", settings_.run.engine.c_str(),
                 settings_.run.scene.options.bodyCount);
  continueFromInput(simulation_, settings_, loadFirst_, options);
  if (loadFirst_) settings_.snapshotPath = options.run.input;
  const std::optional<StartOfParts> partsStart = startOfParts(simulation_, options);
  if (series_.open()) {
    settings_.series.pattern = options.play;
    settings_.series.rate = options.playRate;
    settings_.paused = true;
    playSeries();  // the first snapshot, for the camera and colours below
  }
  std::fprintf(stderr, "run: %s engine on %s, drawn on %s; %s, N = %zu%s\n",
               engine().name().c_str(), engine().device().c_str(),
               front_.contextInfo().renderer.c_str(), settings_.run.method.c_str(),
               engine().bodyCount(), apart() ? "; each rank draws its own bodies, composited" : "");
  target_ = front_.target();
  if (!options.record.empty()) recorder_.start(options.record, target_.size, !options.hidePanel);
  camera_ =
      placeCamera(parseCameraSpec(options.render.camera),
                  partsStart ? partsStart->sphere : boundingSphere(simulation_.initialState()),
                  aspectOf(target_.size));
  settings_.render =
      partsStart
          ? partsStart->settings
          : resolveRenderSettings(options.render, simulation_.initialState(), simulation_.time(),
                                  options.render.settings.density
                                      ? std::vector<float>{}
                                      : fieldValues(options.render.settings.colorBy));
  settings_.automaticColorRange = options.render.colorRange == "auto";
  fitDensityRange_ = fitsDensityToPicture(options.render);
  figures_.renderer = front_.contextInfo().renderer;
  figures_.files = options.files;
  if (cameraPath_) cameraPathEditor_ = CameraPathEditor(cameraPath_->keyframes());
  figures_.cameraPath.keyframes = cameraPathEditor_.keyframes();
  figures_.cameraPath.playing = cameraPath_.has_value();
  figures_.conservation = &conservation_;
  figures_.selection = &selection_.bodies();
  if (!options.render.select.empty())
    selection_.pickIds(engine().download(), parseIdList(options.render.select));
  figures_.bodyChoices = bodyChoicesFor(engine(), settings_.run.scene.options.bodyCount);
  applied_ = settings_;
}

bool LiveSession::Impl::runFrame() {
  if (quitting_ || stopRequested() || !front_.takeInput(keys_)) return false;
  if (!takeInput()) return true;  // minimised: nothing to draw
  showPanel();
  if (!options_.files) dropFileRequests(settings_.requests);  // the keys' (P, M) too
  playSeries();
  const int steps = plannedSteps();
  if (ranks().distributed()) sendOrder({settings_, steps, false});
  applySettings();
  announce(WindowCall::proceed);  // the other ranks step as rank 0 does next
  measureConservation();
  step(steps);
  recountFigures();
  followSelection();
  draw();
  const bool lastFrame = options_.frames > 0 && stats_.frames() >= options_.frames;
  writeScreenshot(lastFrame);
  quitting_ = settings_.requests.asked(Request::Quit);
  settings_.requests.clear();  // the one place requests end: what nothing took is dropped
  front_.present();
  // --print-stats prints the figures this last frame shows (its screenshot too), which do not
  // count the time spent writing that screenshot.
  if (lastFrame) return false;
  // The overhead besides the steps is measured by the wall clock only in frames nothing paces: a
  // served frame's pacing would count as overhead, and its picture is read back without a wait.
  stats_.frameDone(steps, settings_.vsync);
  stats_.fill(figures_, engine(), *findMethod(settings_.run.method));
  return true;
}

// The keys and where to draw; false while nothing can be shown (a minimised window).
bool LiveSession::Impl::takeInput() {
  applyKeys(keys_, settings_);
  target_ = front_.target();
  if (target_.shown()) return true;
  front_.waitWhileHidden();
  stats_.skipFrame();
  return false;
}

void LiveSession::Impl::showPanel() {
  clicks_.beforeFrame(stats_.frames());
  front_.beginPanelFrame();
  steerCamera(camera_, target_.size);
  if (const auto request = takePickRequest()) pickBodies(*request);
  if (cameraPath_) followCameraPath();
  figures_.engineDevice = engine().device();
  figures_.engineOptions = engine().options();
  figures_.timeSplit = engine().lastTimeSplit();
  figures_.step = simulation_.stepCount();
  figures_.time = simulation_.time();
  figures_.recordingSeconds = recorder_.recording() ? recorder_.seconds() : -1.0;
  if (settings_.showPanel)
    drawControlPanel(settings_, figures_);
  else
    recordingBadge(figures_);
}

// The one place where what the panel and the keys changed takes effect.
void LiveSession::Impl::applySettings() {
  if (settings_.vsync != applied_.vsync) front_.setVsync(settings_.vsync);
  bool bodiesStartOver = applySimulationSettings();
  bodiesStartOver |= carryOutSnapshotRequests();
  Requests& asks = settings_.requests;
  if (asks.take(Request::CheckAccuracy)) checkAccuracy();  // where the other ranks check it too
  // Only now: where the ranks hold the bodies apart its measures are announced to the others,
  // which take announcements once they have applied, saved, loaded and checked as above.
  if (bodiesStartOver) startedOver();
  if (apart()) keepToWhatPartsShow();
  carryOutCameraPathRequests();
  if (asks.take(Request::ToggleRecording))
    figures_.message = recorder_.toggle(target_.size, settings_.recordPanel);
  if (asks.take(Request::FitCamera))
    camera_.fit(apart() ? sphereOfParts(engine()) : boundingSphere(engine().download()),
                aspectOf(target_.size));
  if (settings_.run.method != applied_.run.method) stats_.forgetTiming();
  // A range set by hand is another quantity's once the colouring changes: fitted again.
  const bool otherQuantity = settings_.render.colorBy != applied_.render.colorBy ||
                             settings_.render.density != applied_.render.density;
  if (otherQuantity) settings_.automaticColorRange = true;
  if (otherQuantity || settings_.render.logScale != applied_.render.logScale ||
      (settings_.automaticColorRange && !applied_.automaticColorRange)) {
    if (apart())
      measureParts(settings_.render, settings_.automaticColorRange, simulation_.time(), engine());
    else
      refreshColorRange(engine().download());
  } else if (settings_.render.smoothing !=
             applied_.render.smoothing)  // the density's range only: no readback
    fitDensityRange_ = settings_.automaticColorRange && settings_.render.density;
  applied_ = settings_;
}

// The camera on the path it follows; past the last keyframe it stays there, free to be steered.
void LiveSession::Impl::followCameraPath() {
  const double seconds = stats_.secondsSinceStart() - cameraPathStart_;
  placeOnPath(camera_, cameraPath_->at(seconds));
  if (seconds > cameraPath_->keyframes().back().seconds) {
    cameraPath_.reset();
    figures_.cameraPath.playing = false;
  }
}

void LiveSession::Impl::toggleCameraPath() {
  if (cameraPath_) {
    cameraPath_.reset();
  } else if ((cameraPath_ = cameraPathEditor_.path())) {
    cameraPathStart_ = stats_.secondsSinceStart();
  }
}

void LiveSession::Impl::carryOutCameraPathRequests() {
  const CameraPathChoice& r = settings_.cameraPath;
  Requests& asks = settings_.requests;
  const bool add = asks.take(Request::AddKeyframe), clear = asks.take(Request::ClearKeyframes);
  const bool load = asks.take(Request::LoadPath), save = asks.take(Request::SavePath);
  const bool toggle = asks.take(Request::TogglePath);
  const std::optional<std::int64_t> remove = asks.takeValue(Request::RemoveKeyframe);
  try {
    if (add) cameraPathEditor_.add(camera_, r.spacingSeconds);
    if (remove) cameraPathEditor_.remove(std::size_t(*remove));
    if (clear) cameraPathEditor_.clear();
    if (load) cameraPathEditor_.load(r.file);
    if (save) cameraPathEditor_.save(r.file);
    if (save || load)
      figures_.message = "camera path " + std::string(save ? "written to " : "read from ") + r.file;
    if (toggle) toggleCameraPath();
  } catch (const std::exception& e) {
    figures_.message = std::string("camera path: ") + withoutControlCharacters(e.what());
  }
  figures_.cameraPath.keyframes = cameraPathEditor_.keyframes();
  figures_.cameraPath.playing = cameraPath_.has_value();
}

bool LiveSession::Impl::applySimulationSettings() {
  try {
    const LiveSimulation::Changes changes = simulation_.apply(settings_);
    if (changes.engineSwitched || changes.variantChanged || changes.sceneRegenerated)
      stats_.forgetTiming();
    if (changes.engineSwitched || changes.sceneRegenerated)
      figures_.bodyChoices = bodyChoicesFor(engine(), settings_.run.scene.options.bodyCount);
    if (changes.engineSwitched)
      figures_.message = "switched to the " + engine().name() + " engine at step " +
                         std::to_string(simulation_.stepCount());
    return changes.sceneRegenerated;
  } catch (const std::exception& e) {
    figures_.message = std::string("could not switch: ") + e.what();
    return false;
  }
}

// The panel's save and load buttons; the message says what became of them. Whether a snapshot was
// loaded.
bool LiveSession::Impl::carryOutSnapshotRequests() {
  std::string& message = figures_.message;
  const bool save = settings_.requests.take(Request::SaveSnapshot);
  const bool load = settings_.requests.take(Request::LoadSnapshot);
  bool loaded = false;
  if (save && apart()) {
    saveInParts();
  } else if (save) {
    std::string path = timestampedName(settings_.saveFormat);
    try {
      simulation_.save(settings_, path);
      path = newNameTaken(path).string();
      settings_.snapshotPath = path;
      message = "snapshot: wrote " + path + " at step " + std::to_string(simulation_.stepCount());
    } catch (const std::exception& e) {
      newNameTaken(path);  // forgets the name it expected
      message = std::string("snapshot failed: ") + e.what();
    }
  }
  if (load) {
    try {
      const bool inShares = simulation_.load(settings_, settings_.snapshotPath);
      message = "loaded " + settings_.snapshotPath +
                ": N = " + std::to_string(engine().bodyCount()) + ", step " +
                std::to_string(simulation_.stepCount()) + ", " + settings_.run.method +
                (inShares ? ", each rank reading its share of the files" : "");
      loaded = true;
    } catch (const std::exception& e) {
      message = std::string("load failed: ") + e.what();
    }
  }
  if (save || load) std::fprintf(stderr, "run: %s\n", withoutControlCharacters(message).c_str());
  return loaded;
}

// The panel's save while the ranks hold the bodies apart: a GADGET HDF5 file a rank under one name
// rank 0 chose (whatever the format chosen), the followers writing theirs as rank 0 does (the
// frame's order carries the request: frame_orders.cpp). The load field then names the first part,
// which Load reads a share of the files a rank.
void LiveSession::Impl::saveInParts() {
  const int files = ranks().count();
  std::string chosen;
  try {
    chosen = timestampedPartsName(files);
  } catch (const std::exception& e) {
    figures_.message = std::string("snapshot failed: ") + e.what();
  }
  const std::string path = ranks().gatherText(chosen)[0];  // none: no rank writes
  if (path.empty()) return;
  try {
    simulation_.saveParts(settings_, path);
    settings_.snapshotPath = gadgetPartPath(path, 0).string();
    figures_.message = "snapshot: wrote " + path + " in " + std::to_string(files) +
                       " parts, a GADGET HDF5 file a rank (" + settings_.snapshotPath +
                       " ...), at step " + std::to_string(simulation_.stepCount());
  } catch (const std::exception& e) {
    figures_.message = std::string("snapshot failed: ") + e.what();
  }
}

// The series' requests and the snapshot due; a series opened from the panel starts over as a load
// does.
void LiveSession::Impl::playSeries() {
  const double now = stats_.secondsSinceStart();
  const SeriesPlayback::Outcome outcome =
      series_.follow(settings_, simulation_, now - playedUntil_);
  playedUntil_ = now;
  if (outcome.opened) startedOver();
  if (outcome.shown) {
    selection_.findIn(simulation_.initialState());  // its orbit goes on through the series
    measuredField_.reset();  // other bodies, perhaps at the same step and time
  }
  if (!outcome.message.empty()) {
    figures_.message = outcome.message;
    std::fprintf(stderr, "run: %s\n", withoutControlCharacters(outcome.message).c_str());
  }
  figures_.series = series_.figures();
}

// A new scene or a loaded snapshot: the camera, colours, figures and plots start over (where the
// ranks hold the bodies apart, from every rank's part).
void LiveSession::Impl::startedOver() {
  if (apart()) {
    camera_.fit(sphereOfParts(engine()), aspectOf(target_.size));
    measureParts(settings_.render, settings_.automaticColorRange, simulation_.time(), engine());
  } else {
    camera_.fit(boundingSphere(simulation_.initialState()), aspectOf(target_.size));
    selection_.findIn(simulation_.initialState());
    refreshColorRange(simulation_.initialState());
  }
  selection_.forgetOrbits();
  histogramClock_.forget();  // other bodies, perhaps at the same step
  cellsClock_.forget();
  measuredField_.reset();
  figures_.warning.clear();
  stats_.startOver();
  conservation_.restart();
}

// The body clicked (within 10 pixels of the click) or those in the box dragged, read from the state
// as the engine holds it now: they replace the selection, or join it with Ctrl.
void LiveSession::Impl::pickBodies(const PickRequest& request) {
  if (apart()) {
    figures_.message = "picking needs every body in one place, which the ranks hold apart";
    return;
  }
  const State state = engine().download();
  const glm::vec2 size(target_.size);
  const std::uint32_t hidden = settings_.render.hiddenComponents;
  std::vector<std::size_t> picked;
  if (request.box())
    picked = bodiesInside(state, camera_, size, request.corner, request.otherCorner, hidden,
                          Selection::kMostBodies);
  else if (const auto body = bodyNearest(state, camera_, size, request.corner,
                                         10.0f * request.pixelScale, hidden))
    picked.push_back(*body);
  if (picked.empty() && request.add) return;
  selection_.pick(state, picked, request.add);
  figures_.message = selection_.empty()
                         ? "selection cleared: no body there"
                         : "selected " + std::to_string(selection_.bodies().size()) + " bodies";
}

// The selected bodies where the engine has them now (a small readback), and the camera on them
// when it follows them or is asked to aim there once.
void LiveSession::Impl::followSelection() {
  if (settings_.requests.take(Request::ClearSelection)) selection_.clear();
  if (selection_.empty()) return;
  selection_.follow(
      bodyReader_.read(gpuStateOf(engine(), cpuStateTextures_), selection_.indices()));
  const bool centre = settings_.requests.take(Request::CentreOnSelection);
  if (settings_.followSelection || centre)
    if (const auto where = selection_.centre()) camera_.target = *where;
}

// A sample of bodies against direct summation in double precision: a second or so at most.
void LiveSession::Impl::checkAccuracy() {
  try {
    const AccuracyReport report = measureAccuracy(engine(), simulation_.stepNow(settings_),
                                                  {.allUpTo = 4096, .bodies = 4096});
    figures_.accuracy = "force error " + describePercentiles(report.force);
    if (report.potentialError)
      figures_.accuracy += "; potential " + formatNumber(*report.potentialError);
  } catch (const std::exception& e) {
    figures_.accuracy = std::string("accuracy check failed: ") + e.what();
  }
  stats_.forgetTiming();  // the check's GPU work is no step's
}

std::optional<GpuStateView> LiveSession::Impl::bodiesWithField(ColorBy quantity) {
  const GpuStateView bodies = gpuStateOf(engine(), cpuStateTextures_);
  if (!needsBodyField(quantity)) return bodies;
  const StepParams& step = settings_.run.step;
  const MeasuredField now{simulation_.stepCount(), simulation_.time(), quantity, step.gravity,
                          step.softening};
  if (measuredField_ != now) {
    measuredField_.reset();
    try {
      bodyField_.measure(bodies, quantity, step);
    } catch (const std::runtime_error& e) {  // e.g. a tree the GPU cannot hold beside the engine
      figures_.message =
          "no colours or histogram by " + std::string(colorByName(quantity)) + ": " + e.what();
      return std::nullopt;
    }
    measuredField_ = now;
  }
  return bodyField_.attachedTo(bodies);
}

// The field of `quantity` for the state the engine holds now, in body order; empty where it needs
// none or cannot be measured.
std::vector<float> LiveSession::Impl::fieldValues(ColorBy quantity) {
  if (!needsBodyField(quantity) || !bodiesWithField(quantity)) return {};
  return bodyField_.values();
}

void LiveSession::Impl::refreshColorRange(const State& state) {
  fitDensityRange_ =
      settings_.automaticColorRange && settings_.render.density;  // at the next picture
  const ColorBy colorBy = settings_.render.colorBy;
  if (settings_.automaticColorRange && !settings_.render.density)
    settings_.render.colorRange =
        autoColorRange(state, colorBy, settings_.render.logScale, fieldValues(colorBy));
  measureBodies(settings_.render, state, simulation_.time());
}

// What is conserved, a few times a second, before this frame's steps.
void LiveSession::Impl::measureConservation() {
  conservation_.follow({settings_.run.engine, settings_.run.method, settings_.run.step});
  // The energies need every body in one place (and a tree of them all): no plots while apart.
  figures_.conservation = apart() ? nullptr : &conservation_;
  if (apart()) return;
  if (!conservation_.due(stats_.secondsSinceStart(), simulation_.stepCount())) return;
  const double before = stats_.secondsSinceStart();
  const Diagnostics now = diagnostics_.measure(engine(), simulation_.stepNow(settings_));
  const double after = stats_.secondsSinceStart();
  conservation_.record(after, simulation_.stepCount(), simulation_.time(), now, after - before);
}

// The histogram (while shown with the panel) and the tree's cells (while their overlay is on),
// counted from one state read back when either is due (RecountClock).
void LiveSession::Impl::recountFigures() {
  const bool histogramShown =
      settings_.histogram.shown && settings_.showPanel;  // the panel draws it
  figures_.histogram = histogramShown ? &histogram_ : nullptr;
  const long long step = simulation_.stepCount();
  const double began = stats_.secondsSinceStart();
  const bool histogramDue =
      histogramShown &&
      histogramClock_.due(step, began, !(settings_.histogram == histogramCounted_));
  const bool cellsDue = settings_.render.shows(Overlay::Cells) &&
                        cellsClock_.due(step, began, settings_.render.cellDepth != cellsDepth_);
  if (!settings_.render.shows(Overlay::Cells))
    cellsClock_.forget();  // off: counted afresh when it comes back
  if (!histogramDue && !cellsDue) return;
  engine().finish();  // the frame's steps are the GPU's work, not the counting's
  const double before = stats_.secondsSinceStart();
  // Apart, every rank counts its part; keepToWhatPartsShow turned the cells off, and histograms
  // that need a field.
  const std::optional<State> state =
      apart() ? std::nullopt : std::optional<State>(engine().download());
  if (histogramDue) {
    const AppSettings::HistogramChoice& wanted = settings_.histogram;
    histogram_ = state ? histogramOf(*state, wanted.quantity, wanted.logScale, kHistogramBins, step,
                                     fieldValues(wanted.quantity))
                       : histogramOfParts(engine(), wanted, kHistogramBins, step);
    histogramCounted_ = wanted;
  }
  if (cellsDue && state) {
    cells_ = treeCellsOf(*state, settings_.render.cellDepth);
    cellsDepth_ = settings_.render.cellDepth;
  }
  const double cost = stats_.secondsSinceStart() - before;
  if (histogramDue) histogramClock_.counted(step, began, cost);
  if (cellsDue) cellsClock_.counted(step, began, cost);
}

// As many steps as asked, or as fill the frame; one when paused and asked for a single step.
int LiveSession::Impl::plannedSteps() {
  const double refresh = heldToRefresh() ? 1.0 / front_.refreshRate() : 0.0;
  const int stepsPerFrame = stats_.stepsPerFrame(settings_.stepsPerFrame, refresh);
  const bool singleStep = settings_.requests.take(Request::SingleStep);
  const int steps = settings_.paused ? (singleStep ? 1 : 0) : stepsPerFrame;
  return steps;
}

void LiveSession::Impl::step(int steps) {
  if (steps > 0) stats_.timeSteps(engine(), steps, [&] { simulation_.advance(settings_, steps); });
  describeExchange(steps);
  stopIfNonFinite(steps);
}

// A distributed run's ranks and where each rank's time went in this frame's steps.
void LiveSession::Impl::describeExchange(int steps) {
  std::string text = describeRanks(engine(), steps);
  if (!text.empty()) figures_.ranks = std::move(text);
}

// A non-finite state draws nothing: stop and say where it went wrong (checked every 60 frames).
void LiveSession::Impl::stopIfNonFinite(int steps) {
  if (steps == 0 || (stats_.frames() % 60 != 59 && !settings_.paused) || !figures_.warning.empty())
    return;
  if (const auto body = firstNonFiniteBody()) {
    settings_.paused = true;
    figures_.warning = "non-finite state by step " + std::to_string(simulation_.stepCount()) +
                       ": body " + std::to_string(*body) +
                       " (a smaller dt or a larger softening may help; R resets)";
  }
}

// The bodies, then the panel on top.
void LiveSession::Impl::draw() {
  stats_.beginDraw();
  glBindFramebuffer(GL_FRAMEBUFFER, target_.framebuffer);
  glViewport(0, 0, target_.size.x, target_.size.y);
  try {
    drawBodies();
    overlays_.paint(camera_, settings_.render,
                    {simulation_.time(), simulation_.stepCount(), selection_.marked(), &cells_});
  } catch (const std::invalid_argument& e) {  // e.g. an empty colour range
    figures_.warning = e.what();
  }
  const bool lastFrame = options_.frames > 0 && stats_.frames() + 1 >= options_.frames;
  recorder_.capture(WindowRecorder::Stage::Bodies, target_, lastFrame);
  front_.drawPanel();
  recorder_.capture(WindowRecorder::Stage::BodiesAndPanel, target_, lastFrame);
  if (auto said = recorder_.takeMessage()) figures_.message = *said;
  stats_.endDraw();
}

// The bodies where the engine holds them: every rank's part, composited, where the ranks hold them
// apart; else the whole state, with the field its colours need.
void LiveSession::Impl::drawBodies() {
  if (apart()) {
    drawParts(renderer_, engine(), {camera_, settings_.render, simulation_.time(), target_.size});
    return;
  }
  const std::optional<GpuStateView> shown = settings_.render.density
                                                ? gpuStateOf(engine(), cpuStateTextures_)
                                                : bodiesWithField(settings_.render.colorBy);
  const GpuStateView bodies =
      shown.value_or(GpuStateView{});  // none: nothing drawn but the background
  if (fitDensityRange_)
    settings_.render.colorRange = renderer_.fitDensityRange(bodies, camera_, settings_.render);
  fitDensityRange_ = false;
  renderer_.draw(bodies, camera_, settings_.render, simulation_.time());
}

// While the ranks hold the bodies apart: the density, colours and histograms from a field, the
// cells and a selection need every body in one place, and are turned off, the panel saying so.
void LiveSession::Impl::keepToWhatPartsShow() {
  RenderSettings& look = settings_.render;
  AppSettings::HistogramChoice& histogram = settings_.histogram;
  const bool fieldHistogram = histogram.shown && needsBodyField(histogram.quantity);
  if (!needsEveryBody(look) && !fieldHistogram && selection_.empty()) return;
  look.density = false;
  if (needsBodyField(look.colorBy))
    look.colorBy =
        needsBodyField(applied_.render.colorBy) ? ColorBy::Speed : applied_.render.colorBy;
  look.overlays &= ~overlayBit(Overlay::Cells);
  if (fieldHistogram) histogram.shown = false;
  selection_.clear();
  figures_.message =
      "the density, colours or histograms by energy or density, the cells and selections need "
      "every body in one place, which the ranks hold apart";
}

std::optional<std::size_t> LiveSession::Impl::firstNonFiniteBody() {
  return apart() ? firstNonFiniteOfParts(simulation_) : simulation_.firstNonFiniteBody();
}

// A picture of a non-finite state is never written: what it shows would not be the run.
void LiveSession::Impl::writeScreenshot(bool lastFrame) {
  const bool lastPicture = lastFrame && screenshotFile_ != nullptr;
  const bool asked = settings_.requests.take(Request::Screenshot);
  if (!asked && !lastPicture) return;
  std::string path = asked ? timestampedName(".png") : options_.screenshot;
  try {
    if (const auto body = firstNonFiniteBody())
      throw std::runtime_error("the state is not finite at step " +
                               std::to_string(simulation_.stepCount()) + " (body " +
                               std::to_string(*body) + "), so " + path + " was not written");
    if (asked) {
      writePng(readPicture(target_), path);
      path = newNameTaken(path).string();
    } else {
      writePng(readPicture(target_), *screenshotFile_);
      screenshotFile_->commit(
          [] { throwIfStoppedHere([] { return std::string("while writing the screenshot"); }); });
      screenshotWritten_ = true;
    }
    figures_.message = "screenshot: wrote " + std::filesystem::absolute(path).string();
  } catch (const Stopped&) {
    throw;  // runWindow says what it leaves
  } catch (const std::exception& e) {
    if (asked) newNameTaken(path);  // forgets the name it expected
    figures_.message = std::string("screenshot failed: ") + e.what();
    if (!asked) exitCode_ = 1;
  }
  std::fprintf(stderr, "run: %s\n", withoutControlCharacters(figures_.message).c_str());
}

void LiveSession::Impl::finishRecording(const std::function<void()>& beforePublishing) {
  if (!recorder_.recording()) return;
  try {
    std::fprintf(stderr, "run: %s\n",
                 withoutControlCharacters(recorder_.stop(beforePublishing)).c_str());
  } catch (const Stopped&) {
    throw;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "run: recording failed: %s\n", withoutControlCharacters(e.what()).c_str());
    exitCode_ = 1;
  }
}

void LiveSession::Impl::printStats() const {
  const PanelFigures& f = figures_;
  std::printf("run: %s engine (%s), %s, N = %zu, renderer %s\n",
              simulation_.engine().name().c_str(), simulation_.engine().variant().c_str(),
              settings_.run.method.c_str(), simulation_.engine().bodyCount(), f.renderer.c_str());
  const auto measured = [](double milliseconds) {
    return milliseconds >= 0 ? std::to_string(milliseconds) : std::string("n/a");
  };
  if (f.frameMilliseconds > 0)
    std::printf(
        "run: frames %lld, steps %lld, iterations/s %.3f, GFLOPS %.3f, G interactions/s %.4f, "
        "GPU ms/step %s, frame ms %.2f, steps/frame %d, draw GPU ms %s\n",
        stats_.frames(), simulation_.stepCount(), f.iterationsPerSecond, f.gflops,
        f.interactionsPerSecond * 1e-9, measured(f.gpuMillisecondsPerStep).c_str(),
        f.frameMilliseconds, f.stepsPerFrame, measured(f.drawMilliseconds).c_str());
  else  // the rates come from frames before the last one: zeros here would read as a measurement
    std::printf(
        "run: frames %lld, steps %lld, rates n/a (measured from the frames before the last: "
        "ask for --frames 3 or more)\n",
        stats_.frames(), simulation_.stepCount());
  if (f.series.open)
    std::printf("run: series at snapshot %zu of %zu, %s\n", f.series.index + 1, f.series.size,
                withoutControlCharacters(f.series.file).c_str());
  printConservation(conservation_);
  std::printf("run: view: %s\n", describeView(settings_, cameraPathEditor_.keyframes().size(),
                                              selection_.bodies().size())
                                     .c_str());
  printHistogram(histogram_);
  if (clicks_.size() > 0)
    std::printf("run: panel clicks: %zu of %zu taken\n", clicks_.taken(), clicks_.size());
  std::istringstream rankLines(f.ranks);
  for (std::string line; std::getline(rankLines, line);) std::printf("run: %s\n", line.c_str());
  if (!f.warning.empty()) std::printf("run: %s\n", f.warning.c_str());
}

LiveSession::Progress LiveSession::Impl::progress() const {
  return {.step = simulation_.stepCount(),
          .frames = stats_.frames(),
          .time = simulation_.time(),
          .iterationsPerSecond = figures_.iterationsPerSecond,
          .paused = settings_.paused,
          .bodies = simulation_.engine().bodyCount(),
          .engine = simulation_.engine().name(),
          .method = settings_.run.method};
}

LiveSession::LiveSession(const WindowOptions& options, std::shared_ptr<SessionInputs> inputs,
                         SessionFrontEnd& frontEnd)
    : inputs_(std::move(inputs)), impl_(std::make_unique<Impl>(options, *inputs_, frontEnd)) {}
LiveSession::~LiveSession() = default;
bool LiveSession::runFrame() { return impl_->runFrame(); }
void LiveSession::finishRecording(const std::function<void()>& beforePublishing) {
  impl_->finishRecording(beforePublishing);
}
bool LiveSession::recording() const { return impl_->recording(); }
void LiveSession::printStats() const { impl_->printStats(); }
int LiveSession::exitCode() const { return impl_->exitCode(); }
long long LiveSession::frames() const { return impl_->frames(); }
void LiveSession::checkEveryClickCame() const { impl_->checkEveryClickCame(); }
const std::string& LiveSession::renderer() const { return impl_->renderer(); }
bool LiveSession::screenshotWritten() const { return impl_->screenshotWritten(); }
LiveSession::Progress LiveSession::progress() const { return impl_->progress(); }

namespace {

// Rank 0's session: made on every rank alike (a failure to open it ends every rank), then run
// frame by frame.
struct OpenedSession {
  std::unique_ptr<SessionFrontEnd> frontEnd;
  std::unique_ptr<LiveSession> session;
};

OpenedSession openSession(const WindowOptions& options,
                          const std::function<std::unique_ptr<SessionFrontEnd>()>& open) {
  OpenedSession opened;
  std::shared_ptr<SessionInputs> inputs;
  onEveryRankAlike([&] {
    inputs = readSessionInputs(options);  // before the front-end, so a bad file fails first
    opened.frontEnd = open();
  });
  agreeLimitsAcrossRanks();  // as the other ranks do once their contexts are made
  // Apart: its collectives (the scene's rows, the look from the parts) once every rank is ready.
  onEveryRankAlike([&] {
    opened.session = std::make_unique<LiveSession>(options, std::move(inputs), *opened.frontEnd);
  });
  return opened;
}

}  // namespace

// In a distributed run rank 0 runs the session and the other ranks follow its orders
// (app/live/frame_orders.h).
int runSession(const WindowOptions& options,
               const std::function<std::unique_ptr<SessionFrontEnd>()>& open,
               const std::function<void(const LiveSession&)>& eachFrame) {
  if (!ranks().leader()) {
    followWindow(options);
    throwIfStopped(
        [] { return std::string(); });  // the ranks agree on the stop at the session's end
    return 0;
  }
  OpenedSession opened = openSession(options, open);
  LiveSession* app = opened.session.get();
  reportRanksOnce("", app->renderer());
  try {
    while (app->runFrame())
      if (eachFrame) eachFrame(*app);
  } catch (const Stopped&) {  // while the last frame's screenshot was written: said below
  }
  if (ranks().distributed()) sendOrder({{}, 0, true});
  const bool recording = app->recording();
  const auto describe = [&] {
    return "after frame " + std::to_string(app->frames()) +
           (options.screenshot.empty() || app->screenshotWritten()
                ? std::string()
                : "; " + options.screenshot + " was not written") +
           (recording ? "; the recording was abandoned (a file is removed)" : "");
  };
  // A stop while its last frames are encoded abandons the movie (rank 0's own: its own stop).
  app->finishRecording([&] { throwIfStoppedHere(describe); });
  throwIfStopped(describe);
  if (options.printStats) app->printStats();
  app->checkEveryClickCame();
  return app->exitCode();
}

}  // namespace nbody
