#include "app/simulate_command.h"

#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "engines/state_check.h"
#include "io/atomic_file.h"
#include "io/csv.h"

namespace nbody {

CLI::App* addSimulateCommand(CLI::App& app, SimulateOptions& options) {
  CLI::App* command = app.add_subcommand("simulate", "advance a state and write the final state as CSV");
  addEngineOption(*command, options.engine);
  addEngineSettingsOption(*command, options.settings);
  command->add_option("--method", options.method, "integration method")
      ->check(CLI::IsMember(methodNames()))
      ->capture_default_str();
  addProblemOptions(*command, options.problem, true);
  addStepOptions(*command, options.step);
  command->add_option("--steps", options.steps, "number of steps K")
      ->check(CLI::Range(0LL, 1LL << 40))
      ->capture_default_str();
  command->add_option("--output,-o", options.output, "CSV file for the final state")->capture_default_str();
  command->add_option("--check-every", options.checkEvery,
                      "steps between checks for NaN or infinite values (on the GPU for GPU engines)")
      ->check(CLI::Range(1LL, 1LL << 40))
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
  using Clock = std::chrono::steady_clock;
  const Method& method = *findMethod(options.method);
  const State initial = makeInitialState(options.problem);
  AtomicFileWriter output(options.output);  // an unwritable path fails before the work
  EngineSession session = openEngine(options.engine, options.settings);
  Engine& engine = *session.engine;
  if (!options.quiet)
    std::fprintf(stderr, "simulate: %s engine (%s) on %s, %s, N = %zu, %lld steps of dt = %g\n",
                 engine.name().c_str(), engine.variant().c_str(), engine.device().c_str(),
                 method.name.c_str(), initial.size(), options.steps, options.step.dt);
  engine.upload(initial);

  // Steps in chunks that take about a second (so long runs report progress) and end at least
  // every checkEvery steps, where the state is checked for NaN and infinity.
  const auto start = Clock::now();
  NonFiniteCheck check;
  long long done = 0, chunk = 1;
  while (done < options.steps) {
    const long long now = std::min({chunk, options.steps - done, options.checkEvery - done % options.checkEvery});
    const auto chunkStart = Clock::now();
    engine.step(method, options.step, int(now));
    engine.finish();
    done += now;
    if (done % options.checkEvery == 0 || done == options.steps) stopIfNonFinite(check, engine, done - now, done);
    const double seconds = std::chrono::duration<double>(Clock::now() - chunkStart).count();
    chunk = std::clamp<long long>(seconds > 0 ? (long long)(double(now) / seconds) : 2 * now, 1, 1 << 20);
    if (!options.quiet && done < options.steps)
      std::fprintf(stderr, "  step %lld / %lld, %.1f steps/s\n", done, options.steps, double(now) / seconds);
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  writeStateCsv(engine.download(), output.stream());
  output.commit();
  if (!options.quiet)
    std::fprintf(stderr, "simulate: %lld steps in %.3f s; wrote %s\n", options.steps, elapsed,
                 options.output.c_str());
  return 0;
}

}  // namespace nbody
