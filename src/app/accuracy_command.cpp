#include "app/accuracy_command.h"

#include <cmath>
#include <cstdio>
#include <optional>

#include <nlohmann/json.hpp>

#include "app/bench_command.h"
#include "app/engine_session.h"
#include "io/output_file.h"

namespace nbody {
namespace {

// JSON has no NaN or infinity: a figure not measured or not finite is null.
nlohmann::json number(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(); }

// Steps/s and GPU ms of Euler steps: one force evaluation and the update each.
BenchResult timeEvaluations(Engine& engine, const AccuracyOptions& options) {
  BenchOptions timing;
  timing.run = options.run;
  timing.repetitions = 3;
  timing.targetSeconds = 0.3;
  return benchmark(engine, *findMethod("euler"), Readback::none, timing);
}

void printReport(const Engine& engine, const AccuracyOptions& options, const AccuracyReport& report,
                 const BenchResult& timing, const std::vector<std::pair<std::string, double>>& split) {
  std::printf("relative force error |a - a_ref| / |a_ref| against direct summation in double precision:\n  %s\n",
              describePercentiles(report.force).c_str());
  if (report.potentialError)
    std::printf("potential energy: relative error %.3g against the direct pair sum\n", *report.potentialError);
  std::printf("time: %.3f ms per Euler step (one force evaluation and the update), %.2f steps/s", 1e3 / timing.stepsPerSecond,
              timing.stepsPerSecond);
  if (!split.empty()) {
    std::printf("; last evaluation:");
    for (const auto& [part, seconds] : split) std::printf(" %s %.3f ms", part.c_str(), seconds * 1e3);
  }
  std::printf("\n%s engine (%s) on %s, %s, N = %zu\n", engine.name().c_str(), engine.variant().c_str(),
              engine.device().c_str(), options.run.input.empty() ? options.run.choice.scene.name.c_str() : options.run.input.c_str(),
              engine.bodyCount());
}

void writeJson(OutputFile& file, Engine& engine, const AccuracyOptions& options, const AccuracyReport& report,
               const BenchResult& timing, const std::vector<std::pair<std::string, double>>& split) {
  nlohmann::json json = accuracyJson(report);
  json["engine"] = engine.name();
  json["variant"] = engine.variant();
  json["renderer"] = engine.device();
  json["problem"] = options.run.input.empty() ? options.run.choice.scene.name : options.run.input;
  json["bodies"] = engine.bodyCount();
  json["softening"] = options.run.choice.step.softening;
  json["gravity"] = options.run.choice.step.gravity;
  json["ms_per_step"] = number(1e3 / timing.stepsPerSecond);
  json["gpu_ms_per_step"] = number(timing.gpuMillisecondsPerStep);
  for (const auto& [part, seconds] : split) json["last_evaluation_ms"][part] = seconds * 1e3;
  file.stream() << json.dump(2) << '\n';
  file.commit();
}

}  // namespace

std::string describePercentiles(const ForceErrorPercentiles& p) {
  char text[160];
  std::snprintf(text, sizeof text, "median %.3g, 90%% %.3g, 99%% %.3g, 99.9%% %.3g, max %.3g (%zu bodies)", p.median,
                p.p90, p.p99, p.p999, p.max, p.samples);
  return text;
}

nlohmann::json accuracyJson(const AccuracyReport& report) {
  const ForceErrorPercentiles& p = report.force;
  nlohmann::json json{{"force_error", {{"median", number(p.median)},
                                       {"p90", number(p.p90)},
                                       {"p99", number(p.p99)},
                                       {"p999", number(p.p999)},
                                       {"max", number(p.max)},
                                       {"samples", p.samples}}}};
  json["potential_relative_error"] = report.potentialError ? number(*report.potentialError) : nlohmann::json();
  return json;
}

int runAccuracy(const AccuracyOptions& options) {
  std::optional<OutputFile> json;  // opened first: an unwritable path fails before the work
  if (!options.json.empty()) json.emplace(options.json);
  EngineSession session = openEngine(options.run.choice.engine, options.run.choice.engineSettings, nullptr, true);
  Engine& engine = *session.engine;
  const Snapshot start = makeInitialSnapshotFor(engine, options.run);
  const StepParams params = resolveRunSettings(options.run, start).step;
  if (!options.quiet)
    std::fprintf(stderr, "accuracy: %s engine on %s, N = %zu; measuring against double precision ...\n",
                 engine.name().c_str(), engine.device().c_str(), start.state.size());
  engine.upload(start.state);
  const AccuracyReport report = measureAccuracy(engine, params, options.sample);
  const BenchResult timing = timeEvaluations(engine, options);
  const auto split = engine.lastTimeSplit();
  printReport(engine, options, report, timing, split);
  if (json) writeJson(*json, engine, options, report, timing, split);
  return 0;
}

}  // namespace nbody
