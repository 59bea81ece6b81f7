#include "app/window_app.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include <glad/gl.h>
// glad first: GLFW must not pull in a GL header of its own.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include "app/bench_command.h"
#include "app/conservation_history.h"
#include "app/control_panel.h"
#include "app/live_simulation.h"
#include "app/recording_panel.h"
#include "app/window_recorder.h"
#include "diagnostics/engine_diagnostics.h"
#include "gl/timer_ring.h"
#include "gl/window_context.h"
#include "io/atomic_file.h"
#include "io/png.h"
#include "io/snapshot.h"
#include "physics/method.h"
#include "render/point_sprite_renderer.h"
#include "render/state_textures.h"

namespace nbody {
namespace {

using Clock = std::chrono::steady_clock;

// Keys pressed since the last frame. GLFW calls onKey through ImGui's backend, which chains to the
// callback installed before it.
struct KeyPresses {
  bool pause = false, step = false, reset = false, screenshot = false, togglePanel = false, quit = false,
       record = false;
};

void onKey(GLFWwindow* window, int key, int, int action, int) {
  if (action == GLFW_RELEASE) return;
  auto* keys = static_cast<KeyPresses*>(glfwGetWindowUserPointer(window));
  if (!keys || ImGui::GetIO().WantCaptureKeyboard) return;  // typing into the panel
  if (action == GLFW_REPEAT && key != GLFW_KEY_N) return;   // holding N keeps stepping
  switch (key) {
    case GLFW_KEY_SPACE: keys->pause = true; break;
    case GLFW_KEY_N: keys->step = true; break;
    case GLFW_KEY_R: keys->reset = true; break;
    case GLFW_KEY_P: keys->screenshot = true; break;
    case GLFW_KEY_H: keys->togglePanel = true; break;
    case GLFW_KEY_M: keys->record = true; break;
    case GLFW_KEY_ESCAPE: keys->quit = true; break;
    default: break;
  }
}

void applyKeys(KeyPresses& keys, AppSettings& settings) {
  if (keys.pause) settings.paused = !settings.paused;
  if (keys.step) settings.singleStep = true;
  if (keys.reset) settings.reset = true;
  if (keys.screenshot) settings.screenshot = true;
  if (keys.togglePanel) settings.showPanel = !settings.showPanel;
  if (keys.quit) settings.quit = true;
  if (keys.record) settings.toggleRecording = true;
  keys = {};
}

// Left drag orbits, right drag pans, the wheel zooms; not while the mouse is over the panel.
void steerCamera(Camera& camera, glm::ivec2 windowSize) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantCaptureMouse) return;
  const glm::vec2 delta(io.MouseDelta.x, io.MouseDelta.y);
  if (io.MouseDown[0]) camera.orbit(-0.3f * delta.x, 0.3f * delta.y);
  if (io.MouseDown[1] && windowSize.y > 0) camera.pan(glm::vec2(-delta.x, delta.y) / float(windowSize.y));
  if (io.MouseWheel != 0.0f) camera.zoom(std::pow(1.15f, io.MouseWheel));
}

// Steps per second over the last second or so of wall time, and the mean frame time there.
class RateWindow {
 public:
  void add(double seconds, long long steps) {
    samples_.push_back({seconds, steps});
    while (samples_.size() > 2 && samples_.back().seconds - samples_[1].seconds >= kSpan) samples_.pop_front();
  }
  void clear() { samples_.clear(); }
  double stepsPerSecond() const {
    if (samples_.size() < 2) return 0.0;
    return double(samples_.back().steps - samples_.front().steps) / span();
  }
  double frameSeconds() const { return samples_.size() < 2 ? 0.0 : span() / double(samples_.size() - 1); }

 private:
  static constexpr double kSpan = 1.0;
  double span() const { return std::max(samples_.back().seconds - samples_.front().seconds, 1e-9); }
  struct Sample {
    double seconds;
    long long steps;
  };
  std::deque<Sample> samples_;
};

// A running average of measured seconds; below 0: nothing measured yet.
double smooth(double previous, double sample) { return previous >= 0.0 ? 0.7 * previous + 0.3 * sample : sample; }

// The frame overhead estimate with one more frame's sample. A frame that also did one-off work (a
// screenshot written, a state downloaded, a stall) would inflate it: a sample counts for at most
// four times the estimate so far.
double withOverheadSample(double estimate, double sample) {
  sample = std::max(sample, 0.0);
  return smooth(estimate, estimate > 0.0 ? std::min(sample, 4.0 * estimate) : sample);
}

// The default framebuffer as it will be shown (after the panel is drawn, before the swap).
Image readWindow(glm::ivec2 size) {
  Image flipped(size.x, size.y);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);  // RGBA8 rows are whole words
  glReadPixels(0, 0, size.x, size.y, GL_RGBA, GL_UNSIGNED_BYTE, flipped.rgba.data());
  Image image(size.x, size.y);
  const std::size_t row = std::size_t(size.x) * 4;
  for (int y = 0; y < size.y; ++y)
    std::copy_n(flipped.rgba.data() + std::size_t(size.y - 1 - y) * row, row, image.rgba.data() + std::size_t(y) * row);
  return image;
}

// The panel's save and load buttons; the message says what became of them. True when a snapshot
// was loaded (the run starts over from it).
bool carryOutSnapshotRequests(AppSettings& settings, LiveSimulation& simulation, std::string& message) {
  bool loaded = false;
  if (settings.saveSnapshot) {
    const std::string path = std::filesystem::absolute(timestampedName(".nbody")).string();
    try {
      simulation.save(settings, path);
      settings.snapshotPath = path;
      message = "snapshot: wrote " + path + " at step " + std::to_string(simulation.stepCount());
    } catch (const std::exception& e) {
      message = std::string("snapshot failed: ") + e.what();
    }
  }
  if (settings.loadSnapshot) {
    try {
      simulation.load(settings, settings.snapshotPath);
      message = "loaded " + settings.snapshotPath + ": N = " + std::to_string(simulation.engine().bodyCount()) +
                ", step " + std::to_string(simulation.stepCount()) + ", " + settings.method;
      loaded = true;
    } catch (const std::exception& e) {
      message = std::string("load failed: ") + e.what();
    }
  }
  if (settings.saveSnapshot || settings.loadSnapshot) std::fprintf(stderr, "run: %s\n", message.c_str());
  settings.saveSnapshot = settings.loadSnapshot = false;
  return loaded;
}

void printConservation(const ConservationHistory& history) {
  if (history.samples().empty()) {
    std::printf("run: conservation: no samples\n");
    return;
  }
  const ConservationSample& last = history.samples().back();
  std::printf("run: conservation: %zu samples, at step %lld |dE/E0| %.3e, |P-P0| %.3e, |L-L0| %.3e\n",
              history.samples().size(), last.step, last.energyDrift, last.momentumDrift, last.angularMomentumDrift);
}

ConservationSetup conservationSetupOf(const AppSettings& settings) {
  return {settings.engine, settings.method, settings.step};
}

// --load: the snapshot, with the settings the command line gave in place of its own.
Snapshot startingSnapshot(const WindowOptions& options) {
  Snapshot start = readSnapshotFile(options.load);
  if (start.settings)
    start.settings = withGivenSettings(*start.settings, options.given, options.method, options.step);
  return start;
}

AppSettings initialSettings(const WindowOptions& options) {
  AppSettings settings;
  settings.engine = options.engine;
  for (const std::string& setting : options.settings) {
    const auto equals = setting.find('=');
    settings.engineOptions[setting.substr(0, equals)] = setting.substr(equals + 1);
  }
  settings.method = options.method;
  settings.scene = options.problem.scene;
  settings.bodies = options.problem.bodies;
  settings.seed = options.problem.seed;
  settings.step = options.step;
  settings.stepsPerFrame = options.stepsPerFrame == "auto" ? 0 : std::stoi(options.stepsPerFrame);
  settings.render = options.render.settings;
  settings.vsync = !options.noVsync;
  settings.showPanel = !options.hidePanel;
  return settings;
}

}  // namespace

int runWindowApp(const WindowOptions& options) {
  if (!options.screenshot.empty()) {
    AtomicFileWriter probe(options.screenshot);  // an unwritable path fails before the window opens
  }
  std::optional<Snapshot> loadFirst;  // so does a bad file to start from
  if (!options.load.empty()) loadFirst = startingSnapshot(options);
#ifdef NDEBUG
  const bool debug = std::getenv("NBODY_GL_DEBUG") != nullptr;
#else
  const bool debug = true;
#endif
  // --- Set up: window and context, Dear ImGui, simulation, renderer.
  const auto context = gl::WindowContext::create("nbody-gl", options.width, options.height, debug);
  GLFWwindow* window = context->window();
  KeyPresses keys;
  glfwSetWindowUserPointer(window, &keys);
  glfwSetKeyCallback(window, onKey);  // before ImGui's backend, which chains to it
  AppSettings settings = initialSettings(options);
  if (loadFirst) settings.bodies = loadFirst->state.size();  // no larger scene made only to be replaced
  glfwSwapInterval(settings.vsync ? 1 : 0);
  bool vsyncInEffect = settings.vsync;

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no imgui.ini left in the user's folder
  ImGui::StyleColorsDark();
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 450");

  if (settings.engine == "cpu" && settings.bodies > kCpuEngineMaxBodies)
    std::fprintf(stderr, "run: the cpu engine is slow at N = %zu (it is offered up to N = %zu)\n",
                 settings.bodies, kCpuEngineMaxBodies);
  int exitCode = 0;
  {
    LiveSimulation simulation(settings);
    if (loadFirst) {
      simulation.continueFrom(settings, *loadFirst);
      settings.snapshotPath = options.load;
    }
    PointSpriteRenderer renderer;
    UploadedStateTextures cpuStateTextures;  // the CPU engine's state, for the renderer
    gl::TimerRing stepTimer, drawTimer;
    WindowRecorder recorder;
    std::fprintf(stderr, "run: %s engine on %s, window on %s; %s, N = %zu\n",
                 simulation.engine().name().c_str(), simulation.engine().device().c_str(),
                 context->info().renderer.c_str(), settings.method.c_str(), settings.bodies);

    const CameraSpec cameraSpec = parseCameraSpec(options.render.camera);
    const auto aspectOf = [](glm::ivec2 size) { return size.y > 0 ? float(size.x) / float(size.y) : 1.0f; };
    glm::ivec2 framebufferSize;
    glfwGetFramebufferSize(window, &framebufferSize.x, &framebufferSize.y);
    if (!options.record.empty()) recorder.start(options.record, framebufferSize, !options.hidePanel);
    Camera camera = placeCamera(cameraSpec, boundingSphere(simulation.initialState()), aspectOf(framebufferSize));
    settings.render = resolveRenderSettings(options.render, simulation.initialState());
    ColorBy colorRangeFor = settings.render.colorBy;
    const auto refreshColorRange = [&](const State& state) {
      if (options.render.colorRange == "auto") settings.render.colorRange = autoColorRange(state, settings.render.colorBy);
      colorRangeFor = settings.render.colorBy;
    };

    PanelFigures figures;
    figures.renderer = context->info().renderer;
    RateWindow rates;
    double stepSeconds = -1.0, drawSeconds = -1.0;  // GPU time of a step, of drawing a frame
    // What a frame costs besides its steps, in wall time: drawing, and what no GPU timer sees,
    // such as presenting the picture (on a virtual display, a copy through the CPU: 7-11 ms a
    // frame at 1280 x 800 on the H100 under Xvfb). Known only without vsync, whose wait it would
    // include.
    double frameOverheadSeconds = -1.0, frameBegan = 0.0;
    long long frame = 0, stepsSubmitted = 0;
    std::string methodInEffect = settings.method;
    const auto start = Clock::now();
    const auto resetTiming = [&] {
      stepTimer.discardPending();
      stepSeconds = -1.0;
      frameOverheadSeconds = -1.0;
    };
    ConservationHistory conservation;
    EngineDiagnostics diagnostics;
    figures.conservation = &conservation;
    const auto startedOver = [&] {  // a new scene or a loaded snapshot
      camera.fit(boundingSphere(simulation.initialState()), aspectOf(framebufferSize));
      refreshColorRange(simulation.initialState());
      figures.warning.clear();
      rates.clear();
      resetTiming();
      conservation.restart();
    };
    const auto secondsSinceStart = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };

    // --- Loop.
    while (!glfwWindowShouldClose(window) && !settings.quit) {
      glfwPollEvents();
      applyKeys(keys, settings);
      glfwGetFramebufferSize(window, &framebufferSize.x, &framebufferSize.y);
      if (framebufferSize.x <= 0 || framebufferSize.y <= 0) {  // minimised: nothing to draw
        glfwWaitEventsTimeout(0.1);
        frameBegan = secondsSinceStart();  // the wait is no frame's overhead
        continue;
      }

      ImGui_ImplOpenGL3_NewFrame();
      ImGui_ImplGlfw_NewFrame();
      ImGui::NewFrame();
      steerCamera(camera, framebufferSize);
      figures.engineDevice = simulation.engine().device();
      figures.engineOptions = simulation.engine().options();
      figures.step = simulation.stepCount();
      figures.time = simulation.time();
      figures.recordingSeconds = recorder.recording() ? recorder.seconds() : -1.0;
      if (settings.showPanel) drawControlPanel(settings, figures);
      else recordingBadge(figures);

      // Apply what the panel and the keys changed.
      if (settings.vsync != vsyncInEffect) {
        glfwSwapInterval(settings.vsync ? 1 : 0);
        vsyncInEffect = settings.vsync;
      }
      try {
        const LiveSimulation::Changes changes = simulation.apply(settings);
        if (changes.engineSwitched || changes.variantChanged || changes.sceneRegenerated) resetTiming();
        if (changes.engineSwitched)
          figures.message = "switched to the " + simulation.engine().name() + " engine at step " +
                            std::to_string(simulation.stepCount());
        if (changes.sceneRegenerated) startedOver();
      } catch (const std::exception& e) {
        figures.message = std::string("could not switch: ") + e.what();
      }
      if (carryOutSnapshotRequests(settings, simulation, figures.message)) startedOver();
      if (settings.toggleRecording) figures.message = recorder.toggle(framebufferSize, settings.recordPanel);
      settings.toggleRecording = false;
      if (settings.fitCamera) {
        camera.fit(boundingSphere(simulation.engine().download()), aspectOf(framebufferSize));
        settings.fitCamera = false;
      }
      if (settings.method != methodInEffect) {
        resetTiming();
        methodInEffect = settings.method;
      }
      if (settings.render.colorBy != colorRangeFor) refreshColorRange(simulation.engine().download());

      // Measure what is conserved, a few times a second, before this frame's steps.
      conservation.follow(conservationSetupOf(settings));
      if (conservation.due(secondsSinceStart(), simulation.stepCount())) {
        const double before = secondsSinceStart();
        const Diagnostics now = diagnostics.measure(simulation.engine(), settings.step);
        const double after = secondsSinceStart();
        conservation.record(after, simulation.stepCount(), simulation.time(), now, after - before);
      }

      // Step: as many steps as asked, or as fill the frame.
      if (auto seconds = stepTimer.takeFinished()) stepSeconds = smooth(stepSeconds, *seconds);
      if (auto seconds = drawTimer.takeFinished()) drawSeconds = smooth(drawSeconds, *seconds);
      const double refresh = settings.vsync ? 1.0 / context->refreshRate() : 0.0;
      const int stepsPerFrame = settings.stepsPerFrame > 0
                                    ? settings.stepsPerFrame
                                    : autoStepsPerFrame(stepSeconds, std::max(drawSeconds, frameOverheadSeconds), refresh);
      const int steps = settings.paused ? (settings.singleStep ? 1 : 0) : stepsPerFrame;
      settings.singleStep = false;
      if (steps > 0) {
        if (simulation.engine().runsOnGl()) {
          stepTimer.begin(steps);
          simulation.advance(settings, steps);
          stepTimer.end();
        } else {  // the CPU engine steps before it returns
          const auto before = Clock::now();
          simulation.advance(settings, steps);
          stepSeconds = smooth(stepSeconds, std::chrono::duration<double>(Clock::now() - before).count() / steps);
        }
        stepsSubmitted += steps;
      }
      // A non-finite state draws nothing: stop and say where it went wrong.
      if (steps > 0 && (frame % 60 == 59 || settings.paused) && figures.warning.empty())
        if (const auto body = simulation.firstNonFiniteBody()) {
          settings.paused = true;
          figures.warning = "non-finite state by step " + std::to_string(simulation.stepCount()) +
                            ": body " + std::to_string(*body) +
                            " (a smaller dt or a larger softening may help; R resets)";
        }

      // Draw: bodies, then the panel on top.
      drawTimer.begin();
      glBindFramebuffer(GL_FRAMEBUFFER, 0);
      glViewport(0, 0, framebufferSize.x, framebufferSize.y);
      const GpuStateView bodies = gpuStateOf(simulation.engine(), cpuStateTextures);
      try {
        renderer.draw(bodies, camera, settings.render, simulation.time());
      } catch (const std::invalid_argument& e) {  // e.g. an empty colour range
        figures.warning = e.what();
      }
      recorder.capture(WindowRecorder::Stage::Bodies, framebufferSize);
      ImGui::Render();
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      recorder.capture(WindowRecorder::Stage::BodiesAndPanel, framebufferSize);
      if (auto said = recorder.takeMessage()) figures.message = *said;
      drawTimer.end();
      ++frame;

      const bool lastFrame = options.frames > 0 && frame >= options.frames;
      if (settings.screenshot || (lastFrame && !options.screenshot.empty())) {
        const std::string path = settings.screenshot ? timestampedName(".png") : options.screenshot;
        try {
          writePng(readWindow(framebufferSize), path);
          figures.message = "screenshot: wrote " + std::filesystem::absolute(path).string();
        } catch (const std::exception& e) {
          figures.message = std::string("screenshot failed: ") + e.what();
          if (!settings.screenshot) exitCode = 1;
        }
        std::fprintf(stderr, "run: %s\n", figures.message.c_str());
        settings.screenshot = false;
      }
      glfwSwapBuffers(window);
      // --print-stats prints the figures this last frame shows (its screenshot too), which do not
      // count the time spent writing that screenshot.
      if (lastFrame) break;

      const double frameEnded = secondsSinceStart();
      if (!settings.vsync && steps > 0 && stepSeconds > 0.0)
        frameOverheadSeconds = withOverheadSample(frameOverheadSeconds, frameEnded - frameBegan - steps * stepSeconds);
      frameBegan = frameEnded;

      // The figures the panel shows next frame; the same formulas as `nbody bench`.
      rates.add(frameEnded, stepsSubmitted);
      const double n = double(simulation.engine().bodyCount());
      figures.iterationsPerSecond = rates.stepsPerSecond();
      figures.interactionsPerSecond = figures.iterationsPerSecond * findMethod(settings.method)->forceEvaluations() * n * n;
      figures.gflops = figures.interactionsPerSecond * kFlopPerInteraction * 1e-9;
      figures.gpuMillisecondsPerStep = simulation.engine().runsOnGl() && stepSeconds >= 0 ? stepSeconds * 1e3 : -1.0;
      figures.drawMilliseconds = drawSeconds >= 0 ? drawSeconds * 1e3 : -1.0;
      figures.frameMilliseconds = rates.frameSeconds() * 1e3;
      figures.stepsPerFrame = stepsPerFrame;
    }

    if (recorder.recording()) {  // quitting while filming completes the movie
      try {
        std::fprintf(stderr, "run: %s\n", recorder.stop().c_str());
      } catch (const std::exception& e) {
        std::fprintf(stderr, "run: recording failed: %s\n", e.what());
        exitCode = 1;
      }
    }
    if (options.printStats) {
      std::printf("run: %s engine (%s), %s, N = %zu, renderer %s\n", simulation.engine().name().c_str(),
                  simulation.engine().variant().c_str(), settings.method.c_str(), simulation.engine().bodyCount(),
                  figures.renderer.c_str());
      const std::string gpuMilliseconds =
          figures.gpuMillisecondsPerStep >= 0 ? std::to_string(figures.gpuMillisecondsPerStep) : "n/a";
      if (figures.frameMilliseconds > 0)
        std::printf("run: frames %lld, steps %lld, iterations/s %.3f, GFLOPS %.3f, G interactions/s %.4f, "
                    "GPU ms/step %s, frame ms %.2f, steps/frame %d\n",
                    frame, simulation.stepCount(), figures.iterationsPerSecond, figures.gflops,
                    figures.interactionsPerSecond * 1e-9, gpuMilliseconds.c_str(), figures.frameMilliseconds,
                    figures.stepsPerFrame);
      else  // the rates come from frames before the last one: zeros here would read as a measurement
        std::printf("run: frames %lld, steps %lld, rates n/a (measured from the frames before the last: "
                    "ask for --frames 3 or more)\n",
                    frame, simulation.stepCount());
      printConservation(conservation);
      if (!figures.warning.empty()) std::printf("run: %s\n", figures.warning.c_str());
    }
  }

  // --- Tear down.
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  return exitCode;
}

}  // namespace nbody
