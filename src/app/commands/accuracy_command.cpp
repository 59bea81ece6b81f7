#include "app/commands/accuracy_command.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "app/run/engine_session.h"
#include "app/run/rank_agreement.h"
#include "app/run/snapshot_share.h"
#include "app/run/timing.h"
#include "diagnostics/json_number.h"
#include "io/output_file.h"
#include "util/printable_text.h"

namespace nbody {
namespace {

// Steps/s and GPU ms of Euler steps: one force evaluation and the update each.
BenchResult timeEvaluations(Engine& engine, const StepParams& params) {
  const TimingPlan timing{.repetitions = 3, .targetSeconds = 0.3};
  StepParams counted = params;
  return benchmark(engine, *findMethod("euler"), Readback::none, counted, timing);
}

void printReport(const Engine& engine, const AccuracyOptions& options, const AccuracyReport& report,
                 const BenchResult& timing,
                 const std::vector<std::pair<std::string, double>>& split) {
  std::printf(
      "relative force error |a - a_ref| / |a_ref| against direct summation in double precision:\n  "
      "%s\n",
      describePercentiles(report.force).c_str());
  if (report.potentialError && report.directPotential == 0.0)  // one body, or no mass but one
    std::printf("potential energy: relative error undefined (the reference potential is 0)\n");
  else if (report.potentialError)
    std::printf("potential energy: relative error %.3g against the direct pair sum\n",
                *report.potentialError);
  std::printf("time: %.3f ms per Euler step (one force evaluation and the update), %.2f steps/s",
              1e3 / timing.stepsPerSecond, timing.stepsPerSecond);
  if (!split.empty()) {
    std::printf("; last evaluation:");
    for (const auto& [part, seconds] : split)
      std::printf(" %s %.3f ms", part.c_str(), seconds * 1e3);
  }
  const std::string problem =
      options.run.input.empty() ? options.run.choice.scene.name : options.run.input;
  std::printf("\n%s engine (%s) on %s, %s, N = %zu\n", engine.name().c_str(),
              engine.variant().c_str(), engine.device().c_str(),
              withoutControlCharacters(problem).c_str(), engine.bodyCount());
}

// The settings are those measured with: an input snapshot's where the command line gave none.
void writeJson(OutputFile& file, Engine& engine, const AccuracyOptions& options,
               const StepParams& params, const AccuracyReport& report, const BenchResult& timing,
               const std::vector<std::pair<std::string, double>>& split) {
  nlohmann::json json = accuracyJson(report);
  json["engine"] = engine.name();
  json["variant"] = engine.variant();
  json["renderer"] = engine.device();
  json["problem"] = options.run.input.empty() ? options.run.choice.scene.name : options.run.input;
  json["bodies"] = engine.bodyCount();
  json["softening"] = params.softening;
  json["gravity"] = params.gravity;
  json["method"] = timing.method;  // of the timed steps
  json["dt"] = params.dt;
  json["ms_per_step"] = jsonNumber(1e3 / timing.stepsPerSecond);
  json["gpu_ms_per_step"] = jsonNumber(timing.gpuMillisecondsPerStep);
  for (const auto& [part, seconds] : split) json["last_evaluation_ms"][part] = seconds * 1e3;
  file.stream() << json.dump(2) << '\n';
  file.commit();
}

}  // namespace

CommandFiles accuracyFiles(const AccuracyOptions& options) {
  return {{{"--json", options.json}}, {{"--input", options.run.input}}};
}

void addAccuracyOptions(CLI::App& command, AccuracyOptions& options) {
  addRunOptions(command, options.run, {.inputOption = "--input"});
  constexpr std::size_t kMostJudged = std::size_t{1} << 24;
  addIntegerOption<std::size_t>(
      command, "--samples", options.sample.bodies,
      "bodies judged above --all-up-to, drawn at random (each summed over all N)", 1, kMostJudged);
  addIntegerOption<std::size_t>(command, "--all-up-to", options.sample.allUpTo,
                                "every body is judged up to this N", 1, kMostJudged);
  addIntegerOption<std::uint64_t>(command, "--sample-seed", options.sample.seed,
                                  "seed of the random sample", 0,
                                  std::numeric_limits<std::uint64_t>::max());
  addIntegerOption<std::size_t>(
      command, "--potential-up-to", options.sample.potentialUpTo,
      "the potential energy's error (a direct pair sum, O(N^2), over the whole state) is measured "
      "up to this N; past it the decomposed tree under mpiexec reads or makes a share a rank",
      0, kLargestPotentialCheck);
  command.add_option("--json", options.json, "also write the figures to this JSON file")
      ->check(outputPath());
  command.add_flag("--quiet,-q", options.quiet, "print nothing but the figures and errors");
}

int runAccuracy(const AccuracyOptions& options) {
  std::optional<OutputFile> json;  // opened first: an unwritable path fails before the work
  onEveryRankAlike([&] {
    if (!options.json.empty()) json.emplace(options.json);
  });
  EngineSession session = openEngine(options.run.choice.engine, options.run.choice.engineSettings,
                                     nullptr, true, options.quiet);
  Engine& engine = *session.engine;
  // Past the potential's check, which reads the whole state, the ranks may keep their bodies apart.
  RunStart start = apartRunStart(
      engine, options.run,
      [&](std::size_t bodies) {
        return engine.holdsParts(bodies) && bodies > options.sample.potentialUpTo;
      },
      false);
  if (json) json->checkNotRead();  // the other files of a snapshot of several are known now
  const StepParams params = resolveRunSettings(options.run, start.snapshot, start.holders()).step;
  if (!options.quiet)
    std::fprintf(stderr,
                 "accuracy: %s engine on %s, N = %zu%s; measuring against double precision ...\n",
                 engine.name().c_str(), engine.device().c_str(), start.bodies,
                 engine.gatheringDeferred() ? ", each rank holding its share" : "");
  uploadRunStart(start, engine);
  const AccuracyReport report = measureAccuracy(engine, params, options.sample);
  const BenchResult timing = timeEvaluations(engine, params);
  const auto split = engine.lastTimeSplit();
  printReport(engine, options, report, timing, split);
  if (json) writeJson(*json, engine, options, params, report, timing, split);
  return 0;
}

}  // namespace nbody
