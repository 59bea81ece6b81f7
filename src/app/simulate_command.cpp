#include "app/simulate_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>

#include "diagnostics/diagnostics_log.h"
#include "diagnostics/engine_diagnostics.h"
#include "engines/state_check.h"
#include "io/atomic_file.h"
#include "io/csv.h"
#include "app/engine_session.h"

namespace nbody {
namespace {

constexpr std::string_view kStepPlaceholder = "{step}";

CLI::Validator containsStepPlaceholder() {
  return CLI::Validator(
      [](std::string& pattern) -> std::string {
        if (pattern.find(kStepPlaceholder) == std::string::npos)
          return "must contain {step}, which becomes the step number";
        return {};
      },
      "PATTERN");
}

// The first multiple of `every` after `step`; never for every = 0.
long long nextMultiple(long long step, long long every) {
  return every > 0 ? (step / every + 1) * every : std::numeric_limits<long long>::max();
}

// Advances the engine in chunks that take about a second, so long runs report progress.
class ChunkedStepper {
 public:
  ChunkedStepper(Engine& engine, const Method& method, const StepParams& params, long long lastStep,
                 bool quiet)
      : engine_(engine), method_(method), params_(params), lastStep_(lastStep), quiet_(quiet) {}

  void advance(long long& step, long long target) {
    using Clock = std::chrono::steady_clock;
    while (step < target) {
      const long long now = std::min(chunk_, target - step);
      const auto start = Clock::now();
      engine_.step(method_, params_, int(now));
      engine_.finish();
      step += now;
      const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      chunk_ = std::clamp<long long>(seconds > 0 ? (long long)(double(now) / seconds) : 2 * now, 1,
                                     1 << 20);
      if (!quiet_ && step < lastStep_)
        std::fprintf(stderr, "  step %lld / %lld, %.1f steps/s\n", step, lastStep_,
                     double(now) / seconds);
    }
  }

 private:
  Engine& engine_;
  const Method& method_;
  const StepParams& params_;
  long long lastStep_;
  bool quiet_;
  long long chunk_ = 1;
};

}  // namespace

std::string snapshotPathFor(const std::string& pattern, long long step) {
  char number[32];
  std::snprintf(number, sizeof number, "%09lld", step);
  std::string path = pattern;
  for (auto at = path.find(kStepPlaceholder); at != std::string::npos;
       at = path.find(kStepPlaceholder, at))
    path.replace(at, kStepPlaceholder.size(), number);
  return path;
}

CLI::App* addSimulateCommand(CLI::App& app, SimulateOptions& options) {
  CLI::App* command = app.add_subcommand(
      "simulate", "advance a state and write the final state (CSV or a binary snapshot)");
  addRunOptions(*command, options.run, {.inputOption = "--input"});
  command->add_option("--steps", options.steps, "number of steps K (more, after an input snapshot)")
      ->check(CLI::Range(0LL, 1LL << 40))
      ->capture_default_str();
  command->add_option("--check-every", options.checkEvery,
                      "steps between checks for NaN or infinite values (on the GPU for GPU engines)")
      ->check(CLI::Range(1LL, 1LL << 40))
      ->capture_default_str();
  command
      ->add_option("--output,-o", options.output,
                   "file for the final state: .nbody writes a binary snapshot (state, step, "
                   "time and settings), any other name CSV")
      ->capture_default_str();
  CLI::Option* every =
      command
          ->add_option("--snapshot-every", options.snapshotEvery,
                       "also write a snapshot whenever the step number is a multiple of K "
                       "(step numbers go on from an input snapshot's)")
          ->check(CLI::Range(1LL, 1LL << 40));
  command
      ->add_option("--snapshot-path", options.snapshotPath,
                   "where --snapshot-every writes: {step} becomes the step number, 9 digits; "
                   ".nbody: binary snapshots, any other name CSV")
      ->check(containsStepPlaceholder())
      ->needs(every)
      ->capture_default_str();
  CLI::Option* diagnostics = command->add_option(
      "--diagnostics", options.diagnostics,
      "write kinetic, potential and total energy, the relative energy error, momentum, angular "
      "momentum and centre of mass to this CSV file at the first step, every "
      "--diagnostics-every steps and at the last step (on the GPU for GPU engines)");
  command
      ->add_option("--diagnostics-every", options.diagnosticsEvery,
                   "steps between rows of --diagnostics (each row costs about one force "
                   "evaluation)")
      ->check(CLI::Range(1LL, 1LL << 40))
      ->needs(diagnostics)
      ->capture_default_str();
  command->add_flag("--quiet,-q", options.quiet, "print nothing but errors");
  return command;
}

namespace {

std::string vectorText(glm::vec3 v) {
  return "(" + formatFloat(v.x) + ", " + formatFloat(v.y) + ", " + formatFloat(v.z) + ")";
}

// Throws naming the first body whose state is not finite, and the steps between which it broke.
void stopIfNonFinite(NonFiniteCheck& check, Engine& engine, long long fromStep, long long toStep) {
  const auto body = check.firstNonFiniteBody(engine);
  if (!body) return;
  const State state = engine.download();
  throw std::runtime_error(
      "the state became non-finite between steps " + std::to_string(fromStep) + " and " +
      std::to_string(toStep) + ": body " + std::to_string(*body) + " has position " +
      vectorText(state.positionMass[*body]) + ", mass " + formatFloat(state.positionMass[*body].w) +
      ", velocity " + vectorText(state.velocity[*body]) +
      "; a smaller --dt or a larger --softening may help. Nothing was written");
}

}  // namespace

int runSimulate(const SimulateOptions& options) {
  // Unwritable paths and what does not fit fail before any work.
  AtomicFileWriter output(options.output);
  EngineSession session = openEngine(options.run.choice.engine, options.run.choice.engineSettings);
  Engine& engine = *session.engine;
  Snapshot snapshot = makeInitialSnapshotFor(engine, options.run);
  const std::string source = options.run.input.empty() ? "the scene" : options.run.input;
  const RunSettings settings = resolveRunSettings(options.run, snapshot);
  snapshot.settings = settings;
  const Method& method = methodOf(settings, source);
  const StepParams& params = settings.step;
  const long long firstStep = snapshot.step, lastStep = firstStep + options.steps;
  const double firstTime = snapshot.time;
  const auto timeAt = [&](long long step) {
    return firstTime + double(step - firstStep) * params.dt;
  };

  if (options.snapshotEvery > 0)
    AtomicFileWriter probe(snapshotPathFor(options.snapshotPath, lastStep));
  std::optional<DiagnosticsLog> log;
  if (!options.diagnostics.empty()) log.emplace(options.diagnostics, engine.name(), method.name);

  if (!options.quiet)
    std::fprintf(stderr, "simulate: %s engine (%s) on %s, %s, N = %zu, steps %lld to %lld of dt = %g\n",
                 engine.name().c_str(), engine.variant().c_str(), engine.device().c_str(),
                 method.name.c_str(), snapshot.state.size(), firstStep, lastStep, params.dt);
  engine.upload(snapshot.state);
  EngineDiagnostics diagnostics;
  NonFiniteCheck check;
  if (log) log->record(firstStep, firstTime, diagnostics.measure(engine, params));

  const auto start = std::chrono::steady_clock::now();
  ChunkedStepper stepper(engine, method, params, lastStep, options.quiet);
  const long long diagnosticsEvery = log ? options.diagnosticsEvery : 0;
  for (long long step = firstStep; step < lastStep;) {
    const long long from = step;
    stepper.advance(step, std::min({lastStep, nextMultiple(step, options.snapshotEvery),
                                    nextMultiple(step, diagnosticsEvery),
                                    nextMultiple(step, options.checkEvery)}));
    if (step % options.checkEvery == 0 || step == lastStep) stopIfNonFinite(check, engine, from, step);
    if (options.snapshotEvery > 0 && step % options.snapshotEvery == 0)
      writeSnapshotFile({engine.download(), timeAt(step), step, settings},
                        snapshotPathFor(options.snapshotPath, step));
    if (log && (step % diagnosticsEvery == 0 || step == lastStep))
      log->record(step, timeAt(step), diagnostics.measure(engine, params));
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  snapshot.state = engine.download();
  snapshot.step = lastStep;
  snapshot.time = timeAt(lastStep);
  writeSnapshot(snapshot, outputFormatFor(options.output), output.stream());
  output.commit();
  if (log) log->commit();
  if (!options.quiet)
    std::fprintf(stderr, "simulate: %lld steps in %.3f s; wrote %s\n", options.steps, elapsed,
                 options.output.c_str());
  return 0;
}

}  // namespace nbody
