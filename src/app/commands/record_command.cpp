#include "app/commands/record_command.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <tuple>

#include <unistd.h>

#include "app/live/series_player.h"
#include "app/run/drawn_run.h"
#include "app/run/engine_session.h"
#include "app/run/movie_recorder.h"
#include "app/run/rank_agreement.h"
#include "app/run/stop_signals.h"
#include "gl/timer_ring.h"
#include "render/camera_path.h"
#include "util/printable_text.h"

namespace nbody {
namespace {

// After addIntegerOption's check: a number of pixels that yuv420p can halve.
CLI::Validator evenPixels() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (std::stoll(text) % 2 == 0) return {};
        return "expected an even number of pixels (yuv420p keeps colour per 2 x 2 pixels), got " +
               text;
      },
      "EVEN");
}

void addMovieOptions(CLI::App& command, RecordOptions& options) {
  auto* frames =
      addIntegerOption(command, "--frames", options.frames,
                       "number of frames (instead of --seconds)", 1LL, kLargestFrameCount, false);
  addNumberOption(command, "--seconds", options.seconds,
                  "length of the movie in seconds (frames = seconds x fps)", positive())
      ->excludes(frames);
  addIntegerOption(command, "--fps", options.video.framesPerSecond,
                   "frames per second of the movie", 1, kFastestVideoRate);
  for (auto [name, pixels, what] :
       {std::tuple{"--width", &options.drawing.width, "movie width in pixels"},
        std::tuple{"--height", &options.drawing.height, "movie height in pixels"}})
    addIntegerOption(command, name, *pixels, what, kSmallestVideoSide, kLargestVideoSide)
        ->check(evenPixels());
  addIntegerOption(
      command, "--crf", options.video.crf,
      "quality: libx264's constant rate factor, 0 (lossless) to 51; lower is better and larger", 0,
      51);
  command
      .add_option("--encoder", options.video.encoder,
                  "FFmpeg's H.264 encoder; another than libx264 (h264_nvenc, where FFmpeg and the "
                  "driver offer it) keeps its own preset and quality")
      ->capture_default_str();
}

using Clock = std::chrono::steady_clock;

// What a recording that fails or stops leaves.
constexpr const char* kMovieAbandoned = "the movie was abandoned (a file is removed)";

double secondsSince(Clock::time_point began) {
  return std::chrono::duration<double>(Clock::now() - began).count();
}

// "record: frame 120 of 600 (20%), 58.3 frames/s, 8 s left": rewritten in place on a terminal
// twice a second, a line every 5 seconds in a log.
class ProgressLine {
 public:
  ProgressLine(long long total, bool quiet)
      : total_(total), quiet_(quiet), terminal_(::isatty(2) == 1) {}
  ~ProgressLine() {
    if (open_) std::fputc('\n', stderr);  // what is printed next starts on a line of its own
  }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(long long done, double elapsed) {
    if (quiet_ || elapsed - printedAt_ < (terminal_ ? 0.5 : 5.0) || done >= total_) return;
    printedAt_ = elapsed;
    const double rate = double(done) / elapsed;
    std::fprintf(stderr, "%srecord: frame %lld of %lld (%.0f%%), %.1f frames/s, %.0f s left%s",
                 terminal_ ? "\r" : "", done, total_, 100.0 * double(done) / double(total_), rate,
                 double(total_ - done) / rate, terminal_ ? "\033[K" : "\n");
    open_ = terminal_;
  }

 private:
  long long total_;
  bool quiet_, terminal_, open_ = false;
  double printedAt_ = 0.0;
};

// Mean seconds per frame of a stage, from the GPU's timer queries (a frame whose query was still
// busy goes unmeasured) or, for the CPU engine's steps, the wall clock.
class StageTimer {
 public:
  explicit StageTimer(bool onGpu) : onGpu_(onGpu) {}
  void begin() {
    measuring_ = !skipNext_;
    skipNext_ = false;
    if (!measuring_) return;
    if (onGpu_)
      gpu_.begin();
    else
      began_ = Clock::now();
  }
  void end() {
    if (!measuring_) return;
    if (!onGpu_) return add(secondsSince(began_));
    gpu_.end();
    while (const auto seconds = gpu_.takeFinished()) add(*seconds);
  }
  void collectRest() {  // after glFinish: the last queries have their results
    while (const auto seconds = gpu_.takeFinished()) add(*seconds);
  }
  // The next frame goes unmeasured: it follows a wait for the GPU (a check of the state), which
  // llvmpipe's next timer query would count.
  void skipNext() { skipNext_ = true; }
  // "1.23 ms", or why there is no figure. A GPU time per frame longer than the wall time per frame
  // cannot be (llvmpipe's timer queries of compute work give such), so it is not reported.
  std::string describe(double wallMillisecondsPerFrame) const {
    if (frames_ == 0) return "n/a (not measured)";
    const double milliseconds = 1e3 * total_ / double(frames_);
    if (milliseconds > 1.5 * wallMillisecondsPerFrame)
      return "n/a (the GPU's timer disagrees with the clock)";
    char text[48];
    std::snprintf(text, sizeof text, "%.2f ms (%s)", milliseconds, onGpu_ ? "GPU" : "wall clock");
    return text;
  }

 private:
  // The first frame is left out: it makes what is made once (programs, buffers), and llvmpipe's
  // first timer query counts from long before it began.
  void add(double seconds) {
    if (!skippedFirst_) {
      skippedFirst_ = true;
      return;
    }
    total_ += seconds;
    ++frames_;
  }
  bool onGpu_;
  gl::TimerRing gpu_{8};
  Clock::time_point began_;
  double total_ = 0.0;
  long long frames_ = 0;
  bool skippedFirst_ = false, skipNext_ = false, measuring_ = false;
};

long long frameCount(const RecordOptions& options) {
  if (options.frames > 0) return options.frames;
  const double frames = std::round(options.seconds * options.video.framesPerSecond);
  if (!(frames >= 1.0) || frames > double(kLargestFrameCount))
    throw UsageError("--seconds " + shortNumber(options.seconds) + " at --fps " +
                     std::to_string(options.video.framesPerSecond) + " makes " +
                     (frames < 1.0 ? "no frame" : "more than 10^8 frames"));
  return (long long)frames;
}

VideoSettings videoSettingsOf(const RecordOptions& options) {
  VideoSettings video = options.video;
  video.width = options.drawing.width;
  video.height = options.drawing.height;
  return video;
}

// "600 frames of 10 steps of dt = 0.001", or of a series: "60 frames of 60 snapshots
// (run/step-*.nbody)".
std::string framesText(const RecordOptions& options, const DrawnRun& run, long long frames,
                       std::size_t snapshots) {
  char text[160];
  if (snapshots == 0)
    std::snprintf(text, sizeof text, "%s, %lld frames of %lld steps of dt = %g",
                  run.method().name.c_str(), frames, options.stepsPerFrame, run.step().dt);
  else
    std::snprintf(text, sizeof text, "%lld frames of %zu snapshots", frames, snapshots);
  return text + (snapshots == 0 ? "" : " (" + withoutControlCharacters(options.play) + ")");
}

void reportStart(const RecordOptions& options, const EngineSession& session,
                 const std::string& frames, const VideoWriter& writer) {
  if (options.drawing.quiet) return;
  const ShotOptions& d = options.drawing;
  std::fprintf(stderr,
               "record: %s engine (%s) on %s, drawn by renderer %s; %s; %d x %d at %d frames/s "
               "into %s with %s\n",
               session.engine->name().c_str(), session.engine->variant().c_str(),
               session.engine->device().c_str(), session.context->info().renderer.c_str(),
               frames.c_str(), d.width, d.height, options.video.framesPerSecond,
               withoutControlCharacters(d.output).c_str(), writer.encoderName().c_str());
}

struct FilmingTimes {
  double seconds = 0.0;  // wall time from the first step to the completed file
  StageTimer simulate, draw;
};

void reportEnd(const RecordOptions& options, const MovieRecorder& recorder, FilmingTimes& times) {
  if (options.drawing.quiet) return;
  const long long captured = recorder.framesCaptured();
  const double frames = double(captured);
  const MovieRecorder::Waits waits = recorder.waits();
  std::error_code ignored;
  const auto bytes = std::filesystem::file_size(options.drawing.output, ignored);
  std::fprintf(
      stderr,
      "record: wrote %s: %lld frames of %d x %d at %d frames/s (%.2f s of movie), %.2f MB\n",
      withoutControlCharacters(options.drawing.output).c_str(), captured, options.drawing.width,
      options.drawing.height, options.video.framesPerSecond, frames / options.video.framesPerSecond,
      ignored ? 0.0 : double(bytes) * 1e-6);
  std::fprintf(stderr, "record: %lld frames in %.2f s: %.1f frames/s, encoding included\n",
               captured, times.seconds, frames / times.seconds);
  const double wallMilliseconds = 1e3 * times.seconds / frames;
  std::fprintf(
      stderr,
      "record: per frame: simulate %s, draw + readback %s; encode %.2f ms (its own thread, "
      "beside the GPU's work); waited %.2f ms for the encoder, %.2f ms for copies\n",
      times.simulate.describe(wallMilliseconds).c_str(),
      times.draw.describe(wallMilliseconds).c_str(), 1e3 * waits.encoding / frames,
      1e3 * waits.forEncoder / frames, 1e3 * waits.forCopies / frames);
}

// The camera of picture `frame`: on the camera path where there is one, else turned by the orbit;
// aimed at the path's target, or where the centre of mass went.
void aimCamera(DrawnRun& run, const Camera& first, const RecordOptions& options,
               const std::optional<CameraPath>& path, long long frame) {
  const double seconds = double(frame) / options.video.framesPerSecond;
  const glm::vec3 centre = first.target + run.centreOfMassMoved();
  Camera& camera = run.camera();
  if (!path) {
    camera.yawDegrees =
        first.yawDegrees + float(std::fmod(options.orbitDegreesPerSecond * seconds, 360.0));
    camera.target = centre;
    return;
  }
  camera.target = centre;
  placeOnPath(camera, path->at(seconds));
}

// Brings the state of frame `frame` (> 0) into the run; false where a stop ended it early.
using NextFrame = std::function<bool(long long frame)>;

// Frame `frame` of `frames` shows snapshot frame x files / frames of the series: each file once, or
// held over frames where there are more frames than files. A file that cannot be read ends the
// movie.
void showFrameOfSeries(DrawnRun& run, SeriesPlayer& series, long long frame, long long frames) {
  const auto index = std::size_t(static_cast<unsigned long long>(frame) * series.size() /
                                 static_cast<unsigned long long>(frames));
  if (index == series.index()) return;
  series.seek(index);
  const std::optional<Snapshot> snapshot = series.advance(0.0);
  if (!snapshot) throw std::runtime_error(series.problem() + "; " + kMovieAbandoned);
  run.show(*snapshot);
}

void film(DrawnRun& run, MovieRecorder& recorder, const RecordOptions& options, long long frames,
          const NextFrame& nextFrame, const std::optional<CameraPath>& path, FilmingTimes& times) {
  ProgressLine progress(frames, options.drawing.quiet);
  const Camera first = run.camera();
  const auto began = Clock::now();
  const auto abandoned = [&](long long frame) {
    return "at frame " + std::to_string(frame) + " of " + std::to_string(frames) + " (step " +
           std::to_string(run.stepNumber()) + "); " + kMovieAbandoned;
  };
  for (long long frame = 0; frame < frames; ++frame) {
    throwIfStopped([&] { return abandoned(frame); });
    if (frame > 0) {
      times.simulate.begin();
      const bool advanced = nextFrame(frame);
      times.simulate.end();
      if (!advanced) throw Stopped(stopRequested(), abandoned(frame));
    }
    aimCamera(run, first, options, path, frame);
    times.draw.begin();
    run.draw([&] { recorder.capture(frame); });
    times.draw.end();
    if (run.checkFiniteIfDue()) {
      times.simulate.skipNext();
      times.draw.skipNext();
    }
    progress.update(frame + 1, secondsSince(began));
  }
  run.checkFinite();  // the last frame's state (the others every 100 steps)
  recorder.finish([&] {
    throwIfStopped([] { return std::string("while completing the movie; ") + kMovieAbandoned; });
  });
  times.seconds = secondsSince(began);
  glFinish();
  times.simulate.collectRest();
  times.draw.collectRest();
}

}  // namespace

RecordOptions::RecordOptions() {
  drawing.width = 1920;
  drawing.height = 1080;
  drawing.output = "nbody.mp4";
}

void addRecordOptions(CLI::App& command, RecordOptions& options) {
  addDrawingOptions(command, options.drawing);
  addIntegerOption(command, "--steps-per-frame", options.stepsPerFrame,
                   "steps between two frames of the movie", 0LL, kLargestStepCount);
  addMovieOptions(command, options);
  addNumberOption(command, "--orbit", options.orbitDegreesPerSecond,
                  "DEGREES_PER_SECOND of movie time: the camera turns about the vertical axis "
                  "through the centre "
                  "of mass while filming (0: it stays)",
                  within(-1e6, 1e6));
  command
      .add_option("--out,-o", options.drawing.output,
                  "MP4 file to write (it appears only once complete)")
      ->check(outputPath())
      ->capture_default_str();
  command.add_flag("--quiet,-q", options.drawing.quiet, "print nothing but errors (no progress)");
  command
      .add_option(
          "--play", options.play,
          "film the snapshot files this shell pattern names (quote it: 'run/step-*.nbody'), in the "
          "order of their numbers, one a frame (--frames spreads them over that many), in place of "
          "a run")
      ->excludes(command.get_option("--input"))
      ->excludes(command.get_option("--steps-per-frame"))
      ->excludes(command.get_option("--seconds"));
  command
      .add_option(
          "--camera-path", options.cameraPath,
          "FILE of camera keyframes, a line each: SECONDS YAW PITCH DISTANCE [TX TY TZ] (seconds "
          "of "
          "movie time; without a target the camera aims at the centre of mass); the camera moves "
          "smoothly through every one")
      ->check(inputPath())
      ->excludes(command.get_option("--orbit"))
      ->excludes(command.get_option("--camera"));
}

CommandFiles recordFiles(const RecordOptions& options) {
  CommandFiles files{
      {{"--out", options.drawing.output}},
      {{"--input", options.drawing.run.input}, {"--camera-path", options.cameraPath}}};
  addSeriesInputs(files, "--play", options.play);
  return files;
}

int runRecord(const RecordOptions& options) {
  // Read and checked before any work.
  const std::optional<CameraPath> path =
      options.cameraPath.empty() ? std::nullopt
                                 : std::optional(readCameraPathFile(options.cameraPath));
  const std::vector<std::filesystem::path> series =
      options.play.empty() ? std::vector<std::filesystem::path>{} : listPlayedSeries(options.play);
  const long long frames = series.empty() || options.frames > 0
                               ? frameCount(options)
                               : static_cast<long long>(series.size());
  try {
    checkVideoSettings(videoSettingsOf(options));  // what no single option says (the pixel count)
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  // An unwritable file or a missing encoder fails here, before any work.
  std::unique_ptr<VideoWriter> writer;
  onEveryRankAlike([&] {
    writer = std::make_unique<VideoWriter>(options.drawing.output, videoSettingsOf(options));
  });
  EngineSession session =
      openEngine(options.drawing.run.choice.engine, options.drawing.run.choice.engineSettings,
                 nullptr, true, options.drawing.quiet);
  ShotOptions drawing = options.drawing;
  if (!series.empty()) drawing.run.input = series.front().string();
  DrawnRun run(*session.engine, drawing, "No movie was written");
  reportStart(options, session, framesText(options, run, frames, series.size()), *writer);
  reportView("record", options.drawing.quiet, run.bodyCount(), run.camera(), run.settings(),
             run.composited());
  MovieRecorder recorder(std::move(writer));
  FilmingTimes times{0.0, StageTimer(session.engine->runsOnGl()), StageTimer(true)};
  std::optional<SeriesPlayer> player;
  if (!series.empty()) player.emplace(series);
  const NextFrame nextFrame = [&](long long frame) {
    if (!player) return run.advance(options.stepsPerFrame);
    showFrameOfSeries(run, *player, frame, frames);
    return true;
  };
  film(run, recorder, options, frames, nextFrame, path, times);
  reportEnd(options, recorder, times);
  return 0;
}

}  // namespace nbody
