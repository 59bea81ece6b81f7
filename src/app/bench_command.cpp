#include "app/bench_command.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

#include "diagnostics/engine_diagnostics.h"
#include "gl/objects.h"
#include "io/atomic_file.h"
#include "io/json_writer.h"

namespace nbody {
namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

// Runs `steps` steps (reading the state back after each one when asked) and returns wall seconds.
// The GPU time of the same work goes into `gpuSeconds` when a timer query is given.
double timeSteps(Engine& engine, const Method& method, const BenchOptions& options, long long steps,
                 const gl::TimeElapsedQuery* query, double* gpuSeconds) {
  engine.finish();
  const auto start = Clock::now();
  if (query) glBeginQuery(GL_TIME_ELAPSED, query->id());
  for (long long s = 0; s < steps; ++s) {
    engine.step(method, options.step, 1);
    if (options.readback) engine.download();
  }
  if (query) glEndQuery(GL_TIME_ELAPSED);
  engine.finish();
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  if (query) {
    GLuint64 nanoseconds = 0;
    glGetQueryObjectui64v(query->id(), GL_QUERY_RESULT, &nanoseconds);
    *gpuSeconds = double(nanoseconds) * 1e-9;
  }
  return wall;
}

void printTable(const std::vector<BenchResult>& results) {
  std::printf("\n%-9s %-6s %8s %9s %7s %11s %9s %11s %12s %9s\n", "engine", "method", "N",
              "readback", "steps", "steps/s", "ms/step", "GPU ms/step", "G inter./s", "GFLOPS*");
  for (const BenchResult& r : results)
    std::printf("%-9s %-6s %8zu %9s %3lldx%-3d %11.2f %9.3f %11.3f %12.2f %9.1f\n",
                r.engine.c_str(), r.method.c_str(), r.bodies, r.readback ? "each step" : "none",
                r.stepsPerRepetition, r.repetitions, r.stepsPerSecond, 1e3 / r.stepsPerSecond,
                r.gpuMillisecondsPerStep, r.interactionsPerSecond * 1e-9, r.gflops);
  std::printf(
      "* GFLOPS count 20 flop per interaction (NVIDIA's nbody convention; the paper counted 19), "
      "N^2 interactions per force evaluation.\n  steps/s: median of the repetitions, wall clock "
      "between glFinish calls; GPU ms/step: median of GL_TIME_ELAPSED queries.\n");
}

void writeJson(const std::vector<BenchResult>& results, const std::string& path) {
  AtomicFileWriter file(path);
  JsonWriter json(file.stream());
  json.beginObject();
  json.field("tool", "nbody bench");
  json.field("flop_per_interaction", kFlopPerInteraction);
  json.beginArray("results");
  for (const BenchResult& r : results) {
    json.beginObject();
    json.field("renderer", r.device);
    json.field("engine", r.engine);
    json.field("method", r.method);
    json.field("bodies", (long long)r.bodies);
    json.field("readback", r.readback);
    json.field("steps_per_repetition", r.stepsPerRepetition);
    json.field("repetitions", (long long)r.repetitions);
    json.field("steps_per_second", r.stepsPerSecond);
    json.field("gpu_ms_per_step", r.gpuMillisecondsPerStep);
    json.field("interactions_per_second", r.interactionsPerSecond);
    json.field("gflops", r.gflops);
    if (r.conservation) writeConservationJson(json, *r.conservation);
    json.endObject();
  }
  json.endArray();
  json.endObject();
  file.commit();
}

}  // namespace

CLI::App* addBenchCommand(CLI::App& app, BenchOptions& options) {
  CLI::App* command = app.add_subcommand("bench", "time an engine: steps/s, interactions/s, GFLOPS");
  addEngineOption(*command, options.engine);
  command->add_option("--method", options.methods, "integration methods, comma separated")
      ->delimiter(',')
      ->check(CLI::IsMember(methodNames()))
      ->capture_default_str();
  addProblemOptions(*command, options.problem, false);
  addStepOptions(*command, options.step);
  command->add_option("--steps", options.stepsPerRepetition,
                      "steps per timed repetition (default: about 0.5 s worth)")
      ->check(CLI::Range(1LL, 1LL << 30));
  command->add_option("--repetitions", options.repetitions, "timed repetitions; the median is reported")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  command->add_flag("--readback", options.readback,
                    "read the whole state back to the CPU after every step (the paper's table 5)");
  command->add_option("--json", options.json, "also write the results to this JSON file");
  return command;
}

BenchResult benchmark(Engine& engine, const Method& method, const BenchOptions& options) {
  std::unique_ptr<gl::TimeElapsedQuery> query;
  if (engine.runsOnGl()) query = std::make_unique<gl::TimeElapsedQuery>(gl::TimeElapsedQuery::create());
  double gpuSeconds = 0;
  // Warm-up: the first step compiles shaders; the second says how long a step takes.
  timeSteps(engine, method, options, 1, nullptr, nullptr);
  const double oneStep = timeSteps(engine, method, options, 1, nullptr, nullptr);
  const long long steps = options.stepsPerRepetition > 0
                              ? options.stepsPerRepetition
                              : std::max(1LL, (long long)(options.targetSeconds / std::max(oneStep, 1e-6)));
  std::vector<double> stepsPerSecond, gpuMilliseconds;
  std::fprintf(stderr, "  timing %s: %d repetitions of %lld steps ...", method.name.c_str(),
               options.repetitions, steps);
  for (int r = 0; r < options.repetitions; ++r) {
    std::fprintf(stderr, " %d", r + 1);
    const double wall = timeSteps(engine, method, options, steps, query.get(), &gpuSeconds);
    stepsPerSecond.push_back(double(steps) / wall);
    if (query) gpuMilliseconds.push_back(1e3 * gpuSeconds / double(steps));
  }
  std::fprintf(stderr, "\n");

  BenchResult result;
  result.engine = engine.name();
  result.device = engine.device();
  result.method = method.name;
  result.bodies = engine.bodyCount();
  result.stepsPerRepetition = steps;
  result.repetitions = options.repetitions;
  result.readback = options.readback;
  result.stepsPerSecond = median(stepsPerSecond);
  result.gpuMillisecondsPerStep = median(gpuMilliseconds);
  const double n = double(result.bodies);
  result.interactionsPerSecond = result.stepsPerSecond * method.stageCount() * n * n;
  result.gflops = result.interactionsPerSecond * kFlopPerInteraction * 1e-9;
  return result;
}

int runBench(const BenchOptions& options) {
  if (!options.json.empty()) AtomicFileWriter probe(options.json);  // an unwritable path fails now
  const State initial = makeInitialState(options.problem);
  EngineSession session = openEngine(options.engine);
  Engine& engine = *session.engine;
  std::printf("nbody bench: %s engine on %s\n", engine.name().c_str(), engine.device().c_str());
  std::printf("scene %s, N = %zu, dt = %g, softening = %g, G = %g%s\n", options.problem.scene.c_str(),
              initial.size(), options.step.dt, options.step.softening, options.step.gravity,
              options.readback ? ", state read back every step" : "");
  std::fflush(stdout);
  std::vector<BenchResult> results;
  EngineDiagnostics diagnostics;
  for (const std::string& name : options.methods) {
    engine.upload(initial);
    const Diagnostics before = diagnostics.measure(engine, options.step);
    results.push_back(benchmark(engine, *findMethod(name), options));
    results.back().conservation = {before, diagnostics.measure(engine, options.step)};
  }
  printTable(results);
  if (!options.json.empty()) {
    writeJson(results, options.json);
    std::printf("wrote %s\n", options.json.c_str());
  }
  return 0;
}

}  // namespace nbody
