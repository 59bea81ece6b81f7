#include "app/run/timing.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "app/run/collision_watch.h"
#include "app/run/rank_agreement.h"
#include "app/run/stepping.h"
#include "app/run/stop_signals.h"
#include "gl/objects.h"
#include "gl/state_readback.h"
#include "parallel/ranks.h"

namespace nbody {
namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

// `steps` steps through the watch (bench merges, and never halts), in the chunks of about a
// quarter second that simulate makes, so that a stop comes as soon as it does there.
void advanceWatched(Engine& engine, CollisionWatch& watch, const Method& method, StepParams& params,
                    long long steps) {
  ChunkedStepper stepper(engine, method, params);
  stepper.stepChunk = [&](long long step, long long chunk) {
    if (watch.advance(method, params, step, chunk))
      throw std::logic_error("bench's collisions halted: it times merge only");
  };
  long long step = params.stepsDone;
  stepper.advance(step, step + steps);
}

// `steps` steps one by one, reading the state back after each as asked; a stop comes at a step
// boundary.
void advanceReadingBack(Engine& engine, const Method& method, Readback readback, StepParams& params,
                        long long steps) {
  std::unique_ptr<gl::AsyncStateReadback> ring;
  if (readback == Readback::async) ring = std::make_unique<gl::AsyncStateReadback>(3);
  for (long long s = 0; s < steps && !agreedStop(); ++s) {
    engine.step(method, params, 1);
    ++params.stepsDone;  // a moving potential's time goes on
    if (readback == Readback::sync) engine.download();
    if (ring) {
      if (ring->full()) ring->takeOldest();
      ring->request(*engine.gpuState());
    }
  }
  while (ring && ring->pending() > 0) ring->takeOldest();
}

// Advances `steps` steps (counted in params.stepsDone), reading the state back as asked, or
// through the collision watch where one is given, and returns the wall seconds between glFinish
// calls. The GPU time of the same work goes into `gpuSeconds` when a query is given.
double timeSteps(Engine& engine, const Method& method, Readback readback, StepParams& params,
                 long long steps, const gl::TimeElapsedQuery* query, double* gpuSeconds,
                 CollisionWatch* collisions) {
  // Steps that read nothing back leave a decomposed run's state ungathered till they end (the
  // gathering is no step's work: a readback's).
  // (Where the caller deferred it already, it stays so.)
  const bool readsNothing =
      !collisions && readback == Readback::none && !engine.gatheringDeferred();
  if (readsNothing) engine.deferGathering(true);
  engine.finish();
  const auto start = Clock::now();
  if (query) glBeginQuery(gl::kTimeElapsed, query->id());
  if (collisions)
    advanceWatched(engine, *collisions, method, params, steps);
  else
    advanceReadingBack(engine, method, readback, params, steps);
  if (query) glEndQuery(gl::kTimeElapsed);
  engine.finish();
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  if (query) *gpuSeconds = double(gl::queryResult(query->id())) * 1e-9;
  if (readsNothing) engine.deferGathering(false);  // every rank alike, as every step
  return wall;
}

// This rank's figures, as text every rank can read back exactly (moved as bytes, never summed).
std::string ownFigures(const Engine& engine, double wall, long long steps) {
  const RankExchange::Times t = *engine.exchangeTimes();
  const double perStep = 1e3 / double(std::max(steps, 1LL));
  const double steps1 = double(std::max(steps, 1LL));
  char text[384];
  std::snprintf(text, sizeof text, "%.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %zu %zu %zu",
                t.compute * perStep, t.download * perStep, t.mpi * perStep, t.upload * perStep,
                (wall - t.compute - t.download - t.mpi - t.upload) * perStep, t.bytes / steps1,
                t.letBytesSent / steps1, t.letBytesReceived / steps1, t.treeBodiesHeld,
                t.treeArrayRecords, t.stateTextureBytes);
  return text;
}

// The engine's newest split, in milliseconds.
TimeSplit timeSplitMs(Engine& engine) {
  TimeSplit split = engine.lastTimeSplit();
  for (auto& part : split) part.second *= 1e3;
  return split;
}

// A split as text every rank can read back exactly ("name=ms;" a part; no name holds '=' or ';'),
// and back.
std::string splitText(const TimeSplit& split) {
  std::string text;
  char figure[32];
  for (const auto& [name, ms] : split) {
    std::snprintf(figure, sizeof figure, "%.17g", ms);
    text += name + "=" + figure + ";";
  }
  return text;
}

TimeSplit splitOf(const std::string& text) {
  TimeSplit split;
  for (std::size_t at = 0, end; (end = text.find(';', at)) != std::string::npos; at = end + 1) {
    const std::size_t equals = text.find('=', at);
    split.emplace_back(text.substr(at, equals - at),
                       std::stod(text.substr(equals + 1, end - equals - 1)));
  }
  return split;
}

std::vector<RankFigures> rankFigures(Engine& engine, double wall, long long steps) {
  if (!engine.exchangeTimes()) return {};
  const std::vector<std::string> figures = ranks().gatherText(ownFigures(engine, wall, steps));
  const std::vector<std::string> splits = ranks().gatherText(splitText(timeSplitMs(engine)));
  const std::vector<std::string> hosts = ranks().gatherText(ranks().host());
  const std::vector<std::string> devices = ranks().gatherText(rankDevice());
  std::vector<RankFigures> all;
  for (std::size_t r = 0; r < figures.size(); ++r) {
    RankFigures f;
    f.rank = int(r);
    f.host = hosts[r];
    f.device = devices[r];
    std::sscanf(figures[r].c_str(), "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &f.forceMs,
                &f.downloadMs, &f.mpiMs, &f.uploadMs, &f.otherMs, &f.bytesPerStep,
                &f.letBytesSentPerStep, &f.letBytesReceivedPerStep, &f.treeBodiesHeld,
                &f.treeArrayRecords, &f.stateTextureBytes);
    f.timeSplitMs = splitOf(splits[r]);
    all.push_back(f);
  }
  return all;
}

}  // namespace

const std::map<std::string, Readback> kReadbacks{
    {"none", Readback::none}, {"sync", Readback::sync}, {"async", Readback::async}};

std::string_view readbackName(Readback readback) {
  for (const auto& [name, value] : kReadbacks)
    if (value == readback) return name;
  return "?";
}

BenchResult benchmark(Engine& engine, const Method& method, Readback readback, StepParams& params,
                      const TimingPlan& plan, CollisionWatch* collisions) {
  std::unique_ptr<gl::TimeElapsedQuery> query;
  if (engine.runsOnGl())
    query = std::make_unique<gl::TimeElapsedQuery>(gl::TimeElapsedQuery::create());
  double gpuSeconds = 0;
  // Warm-up: the first steps compile shaders (an FSAL method's second step is the first to reuse
  // the force, through kernels of its own); the next says how long a step takes.
  timeSteps(engine, method, readback, params, 2, nullptr, nullptr, collisions);
  const double oneStep =
      timeSteps(engine, method, readback, params, 1, nullptr, nullptr, collisions);
  // Clamped as a double first: --seconds over a very fast step does not fit a long long.
  // Every rank of a distributed run times the same steps (the most any rank's clock asks for).
  const long long steps =
      ranks().maximum(plan.stepsPerRepetition > 0
                          ? plan.stepsPerRepetition
                          : (long long)std::clamp(plan.targetSeconds / std::max(oneStep, 1e-9), 1.0,
                                                  double(kLargestRepetitionSteps)));
  std::vector<double> stepsPerSecond, gpuMilliseconds;
  engine.clearExchangeTimes();
  double totalWall = 0;
  long long totalSteps = 0;
  for (int r = 0; r < plan.repetitions && !agreedStop(); ++r) {
    const double wall =
        timeSteps(engine, method, readback, params, steps, query.get(), &gpuSeconds, collisions);
    stepsPerSecond.push_back(double(steps) / wall);
    if (query) gpuMilliseconds.push_back(1e3 * gpuSeconds / double(steps));
    totalWall += wall;
    totalSteps += steps;
  }
  BenchResult result;
  result.engine = engine.name();
  result.device = engine.device();
  result.variant = engine.variant();
  result.method = method.name;
  result.readback = readback;
  result.bodies = engine.bodyCount();
  result.stepsPerRepetition = steps;
  result.repetitions = plan.repetitions;
  result.stepsPerSecond = median(stepsPerSecond);
  result.gpuMillisecondsPerStep = median(gpuMilliseconds);
  result.interactionsPerStep = interactionsPerStep(engine, method);
  result.interactionsPerSecond = result.stepsPerSecond * result.interactionsPerStep;
  result.gflops = result.interactionsPerSecond * kFlopPerInteraction * 1e-9;
  result.ranks = rankFigures(engine, totalWall, totalSteps);
  if (result.ranks.empty()) result.timeSplitMs = timeSplitMs(engine);
  if (collisions) result.mergers = collisions->mergers();
  return result;
}

}  // namespace nbody
