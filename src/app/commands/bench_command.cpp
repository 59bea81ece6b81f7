#include "app/commands/bench_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "app/run/collision_watch.h"
#include "app/run/engine_session.h"
#include "app/run/rank_agreement.h"
#include "app/run/snapshot_share.h"
#include "app/run/stop_signals.h"
#include "diagnostics/engine_diagnostics.h"
#include "diagnostics/json_number.h"
#include "engines/registry.h"
#include "engines/state_check.h"
#include "io/output_file.h"
#include "parallel/ranks.h"
#include "util/huge_pages.h"
#include "util/printable_text.h"

namespace nbody {
namespace {

using Setting = std::pair<std::string, std::string>;
constexpr std::size_t kLargestConservationCheck = 65536;

// The paper's figures (GeForce 9800 GT, N = 16384): table 3 (Euler, by unroll block, no
// readback) and table 5 (by method, with and without readback). NaN where it has none.
double paperStepsPerSecond(const BenchResult& r) {
  if (r.bodies != 16384) return std::numeric_limits<double>::quiet_NaN();
  const EngineEntry* entry = findEngine(r.engine);
  if (entry && entry->papersMethod && r.method == "euler" && r.readback == Readback::none) {
    for (const auto& [block, figure] : {std::pair{"unroll=1x1", 23.6},
                                        {"unroll=2x2", 27.3},
                                        {"unroll=4x4", 28.3},
                                        {"unroll=8x8", 27.0}})
      if (r.variant.find(block) != std::string::npos) return figure;
  }
  const bool readback = r.readback != Readback::none;
  if (r.method == "euler") return readback ? 21.3 : 28.3;
  if (r.method == "rk2") return readback ? 11.6 : 13.3;
  if (r.method == "rk4") return readback ? 6.3 : 6.6;
  return std::numeric_limits<double>::quiet_NaN();
}

// "sort and migration 27.6, build 20.4, ...": a split's parts, in their order.
std::string splitLine(const TimeSplit& split) {
  std::string text;
  char figure[32];
  for (const auto& [name, ms] : split) {
    std::snprintf(figure, sizeof figure, " %.1f", ms);
    text += (text.empty() ? "" : ", ") + name + figure;
  }
  return text;
}

// A distributed run's split, rank by rank: where each rank's step went.
void printRanks(const BenchResult& r) {
  if (r.ranks.empty()) return;
  std::printf(
      "%-8s %s %s on %zu ranks, ms a step (force | download, MPI, upload | rest), %.1f MB "
      "exchanged a step "
      "through %s:\n",
      r.engine.c_str(), r.variant.c_str(), r.method.c_str(), r.ranks.size(),
      r.ranks[0].bytesPerStep * 1e-6, ranks().gatherPath().c_str());
  for (const RankFigures& f : r.ranks) {
    std::printf("  rank %d on %s (%s): %.3f | %.3f, %.3f, %.3f | %.3f", f.rank, f.host.c_str(),
                f.device.c_str(), f.forceMs, f.downloadMs, f.mpiMs, f.uploadMs, f.otherMs);
    if (f.treeBodiesHeld > 0)
      std::printf(
          "; its tree held %.0f bodies, LETs %.1f MB sent, %.1f MB received a step; state "
          "textures %.1f MB",
          f.treeBodiesHeld, f.letBytesSentPerStep * 1e-6, f.letBytesReceivedPerStep * 1e-6,
          f.stateTextureBytes * 1e-6);
    std::printf("\n");
    if (!f.timeSplitMs.empty())
      std::printf("    its last force, ms: %s\n", splitLine(f.timeSplitMs).c_str());
  }
}

void printTable(const std::vector<BenchResult>& results) {
  int width = 44;  // of the variant column: the longest variant
  for (const BenchResult& r : results) width = std::max(width, int(r.variant.size()));
  std::printf("\n%-8s %-*s %-6s %8s %-5s %8s %10s %9s %9s %11s %9s %8s\n", "engine", width,
              "variant", "method", "N", "read", "steps", "steps/s", "ms/step", "GPU ms",
              "G inter./s", "GFLOPS*", "paper**");
  for (const BenchResult& r : results) {
    const double paper = paperStepsPerSecond(r);
    std::printf("%-8s %-*s %-6s %8zu %-5s %4lldx%-3d %10.2f %9.3f %9.3f %11.2f %9.1f %8s\n",
                r.engine.c_str(), width, r.variant.c_str(), r.method.c_str(), r.bodies,
                readbackName(r.readback).data(), r.stepsPerRepetition, r.repetitions,
                r.stepsPerSecond, 1e3 / r.stepsPerSecond, r.gpuMillisecondsPerStep,
                r.interactionsPerSecond * 1e-9, r.gflops,
                std::isnan(paper) ? "" : std::to_string(paper).substr(0, 4).c_str());
  }
  for (const BenchResult& r : results)
    if (r.accuracy)
      std::printf("%-8s %s: force error %s\n", r.engine.c_str(), r.variant.c_str(),
                  describePercentiles(r.accuracy->force).c_str());
  for (const BenchResult& r : results) printRanks(r);
  std::printf(
      "*  GFLOPS count %g flop per interaction (NVIDIA's nbody convention; the paper counted 19), "
      "N^2 interactions per force evaluation of a direct engine, what the lists held for a tree.\n"
      "   steps/s: median of the repetitions, wall clock "
      "between glFinish calls; GPU ms: median of GL_TIME_ELAPSED queries per step.\n"
      "** the paper's steps/s on a GeForce 9800 GT at N = 16384 (tables 3 and 5), for "
      "comparison.\n",
      kFlopPerInteraction);
}

// A split's parts by name ("sort and migration" as sort_and_migration).
nlohmann::json splitJson(const TimeSplit& split) {
  nlohmann::json parts = nlohmann::json::object();
  for (auto [name, ms] : split) {
    std::replace(name.begin(), name.end(), ' ', '_');
    parts[name] = jsonNumber(ms);
  }
  return parts;
}

nlohmann::json resultJson(const BenchResult& r, const StepParams& step,
                          const std::string& collisions) {
  nlohmann::json json{{"renderer", r.device},
                      {"engine", r.engine},
                      {"variant", r.variant},
                      {"method", r.method},
                      {"dt", step.dt},
                      {"softening", step.softening},
                      {"gravity", step.gravity},
                      {"potential", step.potential ? step.potential->spec() : ""},
                      {"collisions", collisions},
                      {"bodies", r.bodies},
                      {"readback", readbackName(r.readback)},
                      {"steps_per_repetition", r.stepsPerRepetition},
                      {"repetitions", r.repetitions},
                      {"steps_per_second", jsonNumber(r.stepsPerSecond)},
                      {"gpu_ms_per_step", jsonNumber(r.gpuMillisecondsPerStep)},
                      {"interactions_per_step", jsonNumber(r.interactionsPerStep)},
                      {"interactions_per_second", jsonNumber(r.interactionsPerSecond)},
                      {"gflops", jsonNumber(r.gflops)}};
  if (r.mergers) json["mergers"] = *r.mergers;
  if (!r.timeSplitMs.empty()) json["time_split_ms"] = splitJson(r.timeSplitMs);
  if (r.conservation) json["conservation"] = conservationJson(*r.conservation);
  if (r.accuracy) json["accuracy"] = accuracyJson(*r.accuracy);
  json["ranks"] = std::max<std::size_t>(r.ranks.size(), 1);
  for (const RankFigures& f : r.ranks)
    json["per_rank"].push_back(
        {{"rank", f.rank},
         {"host", f.host},
         {"device", f.device},
         {"force_ms_per_step", jsonNumber(f.forceMs)},
         {"download_ms_per_step", jsonNumber(f.downloadMs)},
         {"mpi_ms_per_step", jsonNumber(f.mpiMs)},
         {"upload_ms_per_step", jsonNumber(f.uploadMs)},
         {"other_ms_per_step", jsonNumber(f.otherMs)},
         {"bytes_exchanged_per_step", jsonNumber(f.bytesPerStep)},
         {"bodies_held", f.treeBodiesHeld > 0 ? f.treeBodiesHeld : double(r.bodies)},
         {"tree_array_records", f.treeArrayRecords > 0 ? f.treeArrayRecords : double(r.bodies)},
         {"state_texture_bytes", f.stateTextureBytes},
         {"let_bytes_sent_per_step", jsonNumber(f.letBytesSentPerStep)},
         {"let_bytes_received_per_step", jsonNumber(f.letBytesReceivedPerStep)},
         {"time_split_ms", splitJson(f.timeSplitMs)}});
  return json;
}

void writeJson(const std::vector<BenchResult>& results, const std::string& scene,
               const StepParams& step, const std::string& collisions, OutputFile& file) {
  nlohmann::json report{{"tool", "nbody bench"},
                        {"scene", scene},
                        {"flop_per_interaction", kFlopPerInteraction},
                        {"ranks", ranks().count()},
                        {"hosts", ranks().gatherText(ranks().host())},
                        {"exchange", ranks().gatherPath()}};
  // How the host's memory was paged (rank 0's host): util/huge_pages.h.
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  report["malloc_tunables"] = tunables ? nlohmann::json(tunables) : nlohmann::json();
  const std::optional<std::string> pages = transparentHugePageMode();
  report["transparent_huge_pages"] = pages ? nlohmann::json(*pages) : nlohmann::json();
  report["results"] = nlohmann::json::array();
  for (const BenchResult& r : results) report["results"].push_back(resultJson(r, step, collisions));
  file.stream() << report.dump(2) << '\n';
}

// One figure of every rank, separated by ';' (empty in a single process).
std::string byRank(const BenchResult& r, double RankFigures::*figure) {
  std::string text;
  for (const RankFigures& f : r.ranks)
    text += (text.empty() ? "" : ";") + std::to_string(f.*figure);
  return text;
}

// `text` as one CSV field: quoted, its quotes doubled.
std::string csvField(const std::string& text) {
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + '"';
}

// One name of every rank (its host or device), separated by ';', as a CSV field; in a single
// process, `own`.
std::string byRank(const BenchResult& r, std::string RankFigures::*name, const std::string& own) {
  if (r.ranks.empty()) return csvField(own);
  std::string text;
  for (const RankFigures& f : r.ranks) text += (text.empty() ? "" : ";") + f.*name;
  return csvField(text);
}

void writeCsv(const std::vector<BenchResult>& results, OutputFile& file) {
  file.stream()
      << "renderer,engine,variant,method,bodies,readback,steps_per_second,"
         "gpu_ms_per_step,interactions_per_second,gflops,ranks,force_ms_by_rank,download_ms_by_"
         "rank,"
         "mpi_ms_by_rank,upload_ms_by_rank,other_ms_by_rank,bytes_exchanged_per_step,hosts_by_rank,"
         "devices_by_rank\n";
  for (const BenchResult& r : results)
    file.stream() << csvField(r.device) << ',' << r.engine << ',' << csvField(r.variant) << ','
                  << r.method << ',' << r.bodies << ',' << readbackName(r.readback) << ','
                  << r.stepsPerSecond << ',' << r.gpuMillisecondsPerStep << ','
                  << r.interactionsPerSecond << ',' << r.gflops << ','
                  << std::max<std::size_t>(r.ranks.size(), 1) << ','
                  << byRank(r, &RankFigures::forceMs) << ',' << byRank(r, &RankFigures::downloadMs)
                  << ',' << byRank(r, &RankFigures::mpiMs) << ','
                  << byRank(r, &RankFigures::uploadMs) << ',' << byRank(r, &RankFigures::otherMs)
                  << ',' << std::to_string(r.ranks.empty() ? 0.0 : r.ranks.front().bytesPerStep)
                  << ',' << byRank(r, &RankFigures::host, ranks().host()) << ','
                  << byRank(r, &RankFigures::device, r.device) << '\n';
}

// The variants to time on `engine`: its current choices with `fixed` applied, or with --sweep
// every combination of the options `fixed` leaves free.
std::vector<std::vector<Setting>> variantsToTime(const Engine& engine,
                                                 const std::vector<Setting>& fixed, bool sweep) {
  std::vector<std::vector<Setting>> variants{fixed};
  if (!sweep) return variants;
  for (const EngineOption& option : engine.options()) {
    const bool isFixed = std::any_of(fixed.begin(), fixed.end(),
                                     [&](const Setting& s) { return s.first == option.name; });
    if (isFixed) continue;
    std::vector<std::vector<Setting>> extended;
    for (const auto& partial : variants)
      for (const std::string& choice : option.choices) {
        extended.push_back(partial);
        extended.back().emplace_back(option.name, choice);
      }
    variants = std::move(extended);
  }
  return variants;
}

std::vector<std::string> enginesToTime(const BenchOptions& options) {
  const std::vector<std::string>& asked = options.run.engines;
  if (std::find(asked.begin(), asked.end(), "all") == asked.end()) return asked;
  std::vector<std::string> names;
  for (const EngineEntry& entry : engineRegistry())
    if (entry.benchedAt(options.run.choice.scene.bodyCount())) names.push_back(entry.name);
  return names;
}

// With several engines, each takes the --set settings it has an option for.
std::vector<Setting> settingsFor(const Engine& engine, const EngineSettings& given,
                                 bool onlyEngine) {
  std::vector<Setting> applicable;
  const EngineSettings offered = engine.settings();
  for (const auto& [name, value] : given)
    if (onlyEngine || offered.count(name)) applicable.emplace_back(name, value);
  return applicable;
}

// What one engine's timings need besides the engine: the initial state, the diagnostics and the
// NaN check, kept across engines; and what a run that ends early leaves unwritten.
struct BenchRun {
  const BenchOptions& options;
  const RunStart& initial;  // the scene, whole or (a lone decomposed tree) a part a rank
  EngineDiagnostics diagnostics;
  NonFiniteCheck check;
  std::vector<BenchResult> results;
  std::string unwritten;
};

// benchmark(), with --collisions through a watch as simulate's (looking at the initial state
// first), which stops screening before the diagnostics measure.
BenchResult timeWithCollisions(Engine& engine, const Method& method, Readback readback,
                               StepParams& params, const BenchOptions& options) {
  if (!options.collisions.enabled())
    return benchmark(engine, method, readback, params, options.timing);
  CollisionWatch watch(options.collisions, engine, [&params](long long step) {
    return params.startTime + double(step) * params.dt;
  });
  if (watch.look(params, params.stepsDone))
    throw std::logic_error("bench's collisions halted: it times merge only");
  return benchmark(engine, method, readback, params, options.timing, &watch);
}

// Where the ranks hold parts of the state (a decomposed tree), bench reads nothing but the parts,
// at any N: gathering stays deferred from the upload on (the whole state's textures are never
// made), the force error and the non-finite check come from the parts, and the energies (which
// need the whole state, and above 65536 bodies a whole tree on every rank) are not measured. Not
// with a readback or a collision watch, which read the whole state.
bool readsOnlyParts(const Engine& engine, std::size_t bodies, Readback readback,
                    const BenchOptions& options) {
  return readback == Readback::none && !options.collisions.enabled() && engine.holdsParts(bodies);
}

// The same for every readback timed: the engine's memory is then planned without the whole state.
bool readsOnlyParts(const Engine& engine, std::size_t bodies, const BenchOptions& options) {
  return std::all_of(options.readbacks.begin(), options.readbacks.end(), [&](Readback readback) {
    return readsOnlyParts(engine, bodies, readback, options);
  });
}

void timeMethod(Engine& engine, const Method& method, Readback readback, BenchRun& run) {
  StepParams params = run.options.run.choice.step;  // counts the steps: a potential's time
  const std::size_t bodies = run.initial.bodies;
  const bool partsOnly = readsOnlyParts(engine, bodies, readback, run.options);
  engine.deferGathering(partsOnly);  // before the upload; undeferred, the last state is gathered
  uploadRunStartKept(run.initial, engine);
  // Energy and momentum before and after the timed steps, for the JSON report. The potential is an
  // O(N^2) pass of its own, so very large runs skip it, unless the engine estimates it (a tree).
  std::optional<Diagnostics> before;
  if ((bodies <= kLargestConservationCheck || engine.estimatesPotential()) && !partsOnly)
    before = run.diagnostics.measure(engine, params);
  // An approximate engine's speed means little without its accuracy on the same state.
  std::optional<AccuracyReport> accuracy;
  if (findEngine(engine.name())->approximate)
    accuracy = measureAccuracy(engine, params, benchAccuracySample(bodies));
  BenchResult result = timeWithCollisions(engine, method, readback, params, run.options);
  result.accuracy = accuracy;
  const std::string timing = method.name + " on the " + engine.name() + " engine";
  throwIfStopped([&] { return "while timing " + timing + run.unwritten; });
  if (const auto body = run.check.firstNonFiniteBody(engine))
    throw std::runtime_error("the state became non-finite while timing " + timing +
                             " (first body " + std::to_string(*body) +
                             "); a smaller --dt or a larger --softening may help" + run.unwritten);
  if (before) result.conservation = {*before, run.diagnostics.measure(engine, params)};
  run.results.push_back(std::move(result));
}

void timeEngine(Engine& engine, bool onlyEngine, BenchRun& run) {
  const BenchOptions& options = run.options;
  if (options.collisions.enabled())
    applyScreenedSettings(engine, options.run.choice.engineSettings);
  const auto variants = variantsToTime(
      engine, settingsFor(engine, options.run.choice.engineSettings, onlyEngine), options.sweep);
  const std::size_t total = variants.size() * options.run.methods.size() * options.readbacks.size();
  std::size_t done = 0;
  for (const auto& variant : variants) {
    for (const auto& [name, value] : variant) engine.setOption(name, value);
    for (const std::string& methodName : options.run.methods)
      for (const Readback readback : options.readbacks) {
        if (readback != Readback::none && !engine.runsOnGl())
          continue;  // the CPU engine reads nothing back
        std::fprintf(stderr, "  [%zu/%zu] %s %s %s readback=%s ...\n", ++done, total,
                     engine.name().c_str(), engine.variant().c_str(), methodName.c_str(),
                     readbackName(readback).data());
        timeMethod(engine, *findMethod(methodName), readback, run);
      }
  }
}

// The engines to time, made up front in one context, so that a --set no timed engine offers (or
// a value one of them refuses) is a usage error before any timing.
std::vector<std::unique_ptr<Engine>> makeEngines(const BenchOptions& options,
                                                 std::unique_ptr<gl::HeadlessContext>& context) {
  std::vector<std::unique_ptr<Engine>> engines;
  for (const std::string& name : enginesToTime(options)) {
    EngineSession session = openEngine(name, {}, std::move(context));
    context = std::move(session.context);
    engines.push_back(std::move(session.engine));
  }
  return engines;
}

// With one engine, the engine itself refuses what it does not offer (setOption); with several,
// each takes the settings it has an option for, and a setting none of them has is a mistake.
void checkSettingsOffered(const std::vector<std::unique_ptr<Engine>>& engines,
                          const EngineSettings& given) {
  if (engines.size() < 2) return;
  for (const auto& [name, value] : given) {
    std::string names;
    bool offered = false;
    for (const auto& engine : engines) {
      names += (names.empty() ? "" : ", ") + engine->name();
      if (!engine->settings().count(name)) continue;
      offered = true;
      engine->setOption(name, value);  // throws UsageError for a value this engine does not offer
    }
    if (!offered)
      throw UsageError("--set " + name + "=" + value + ": none of the engines timed (" + names +
                       ") has an option " + name);
  }
}

// Every engine must have something to time: one that keeps its state on the CPU reads nothing
// back, so with --readback sync or async alone it would time nothing (an empty table, exit 0).
void checkEachEngineTimesSomething(const BenchOptions& options) {
  const bool none = std::find(options.readbacks.begin(), options.readbacks.end(), Readback::none) !=
                    options.readbacks.end();
  for (const std::string& name : enginesToTime(options))
    if (!findEngine(name)->needsGl && !none)
      throw UsageError("--readback " + std::string(readbackName(options.readbacks.front())) +
                       ": the " + name +
                       " engine keeps its state on the CPU and reads nothing back, so it would "
                       "time nothing; time it "
                       "with --readback none");
}

// bench times the steps simulate makes with --collisions merge (its option takes no halt); a
// read-back of its own would time what the watch already reads.
void checkCollisionsCanBeTimed(const BenchOptions& options) {
  if (options.collisions.enabled() &&
      std::any_of(options.readbacks.begin(), options.readbacks.end(),
                  [](Readback readback) { return readback != Readback::none; }))
    throw UsageError(
        "--collisions is timed with --readback none only (its watch reads back what "
        "it needs)");
}

}  // namespace

CommandFiles benchFiles(const BenchOptions& options) {
  CommandFiles files;
  if (!options.json.empty()) files.outputs.push_back({"--json", options.json});
  if (!options.csv.empty()) files.outputs.push_back({"--csv", options.csv});
  return files;
}

void addBenchOptions(CLI::App& command, BenchOptions& options) {
  addRunOptions(command, options.run, {.several = true});
  command
      .add_option("--readback", options.readbacks,
                  "read the state back to the CPU every step: none, sync (glGetTexImage, the "
                  "paper's table 5), async (pixel-buffer ring); comma separated")
      ->delimiter(',')
      ->transform(CLI::Validator(
          [](std::string& name) {  // the name becomes the number CLI11 stores as a Readback
            const auto found = kReadbacks.find(name);
            if (found == kReadbacks.end())
              return printable(name, 40) + " is not one of none, sync, async";
            name = std::to_string(int(found->second));
            return std::string();
          },
          "none|sync|async"))
      ->default_str("none");
  command.add_flag("--sweep", options.sweep, "time every combination of every engine option");
  addIntegerOption(command, "--steps", options.timing.stepsPerRepetition,
                   "steps per timed repetition (default: --seconds worth)", 1LL,
                   kLargestRepetitionSteps, false);
  addNumberOption(command, "--seconds", options.timing.targetSeconds,
                  "about how long each repetition runs, when --steps is not given",
                  {0.0, kLongestRepetitionSeconds, false});
  addIntegerOption(command, "--repetitions", options.timing.repetitions,
                   "timed repetitions; the median is reported", 1, 1000);
  command.add_option("--json", options.json, "also write the results to this JSON file")
      ->check(outputPath());
  command.add_option("--csv", options.csv, "also write the results to this CSV file")
      ->check(outputPath());
  addCollisionOptions(command, options.collisions, true);
}

int runBench(const BenchOptions& given) {
  BenchOptions options = given;
  checkCollisionSettings(options.collisions);
  options.run.choice.step.potential = givenPotential(options.run, options.run.choice.step.gravity);
  checkEachEngineTimesSomething(options);
  checkCollisionsCanBeTimed(options);
  // Unwritable paths fail now, not at the end (two that are one file failed at parsing).
  OutputGroup outputs;
  OutputFile *json = nullptr, *csv = nullptr;
  onEveryRankAlike([&] {
    if (!options.json.empty()) json = &outputs.open(options.json);
    if (!options.csv.empty()) csv = &outputs.open(options.csv);
  });
  const SceneChoice& scene = options.run.choice.scene;
  const StepParams& step = options.run.choice.step;
  const std::string fixed = scene.bodyCount() == scene.options.bodyCount
                                ? ""
                                : " (" + scene.name + " has " + std::to_string(scene.bodyCount()) +
                                      " bodies whatever --bodies says)";
  std::printf("nbody bench: scene %s, N = %zu%s, dt = %g, softening = %g, G = %g\n",
              scene.name.c_str(), scene.bodyCount(), fixed.c_str(), step.dt, step.softening,
              step.gravity);
  if (step.potential) std::printf("external potential: %s\n", step.potential->spec().c_str());
  if (options.collisions.enabled())
    std::printf("collisions: %s\n", collisionsText(options.collisions).c_str());
  std::unique_ptr<gl::HeadlessContext> context;  // outlives the engines
  std::vector<std::unique_ptr<Engine>> engines = makeEngines(options, context);
  checkSettingsOffered(engines, options.run.choice.engineSettings);
  RunStart initial;  // made once the first engine said it can hold it
  BenchRun run{options, initial, {}, {}, {}, {}};
  for (const NamedFile& file : benchFiles(options).outputs)
    run.unwritten += "; " + file.path + " was not written";
  for (auto& engine : engines) {
    // Its capacity under the settings given (e.g. distribute=decompose), as it will be timed.
    for (const auto& [name, value] :
         settingsFor(*engine, options.run.choice.engineSettings, engines.size() == 1))
      engine->setOption(name, value);
    engine->deferGathering(readsOnlyParts(*engine, scene.bodyCount(), options));
    engine->checkCapacity(scene.bodyCount());
    // A lone engine that holds parts and reads nothing more has each rank make its own.
    if (initial.bodies == 0)
      initial =
          sceneRunStart(*engine, options.run,
                        engines.size() == 1 && readsOnlyParts(*engine, scene.bodyCount(), options));
    std::printf("%s engine on %s\n", engine->name().c_str(), engine->device().c_str());
    std::fflush(stdout);
    timeEngine(*engine, engines.size() == 1, run);
    engine.reset();  // its textures go before the next engine's are made
  }
  printTable(run.results);
  if (json) writeJson(run.results, scene.name, step, collisionsText(options.collisions), *json);
  if (csv) writeCsv(run.results, *csv);
  outputs.commit(
      [&] { throwIfStopped([&] { return "while writing the reports" + run.unwritten; }); });
  for (const NamedFile& file : benchFiles(options).outputs)
    std::printf("wrote %s\n", withoutControlCharacters(file.path).c_str());
  return 0;
}

}  // namespace nbody
