#include "app/command_line.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "engines/registry.h"
#include "gl/debug.h"
#include "physics/method.h"
#include "physics/scenes.h"

namespace nbody {
namespace {

CLI::Validator finiteAtLeast(bool allowZero) {
  return CLI::Validator(
      [allowZero](std::string& text) -> std::string {
        double value = 0.0;
        try {
          std::size_t used = 0;
          value = std::stod(text, &used);
          if (used != text.size()) return "'" + text + "' is not a number";
        } catch (const std::exception&) {
          return "'" + text + "' is not a number";
        }
        if (!std::isfinite(value)) return "must be finite, got " + text;
        if (value < 0.0 || (!allowZero && value == 0.0))
          return std::string("must be ") + (allowZero ? ">= 0" : "> 0") + ", got " + text;
        return {};
      },
      allowZero ? "FINITE >= 0" : "FINITE > 0");
}

}  // namespace

CLI::Validator finitePositive() { return finiteAtLeast(false); }
CLI::Validator finiteNonNegative() { return finiteAtLeast(true); }

void addProblemOptions(CLI::App& command, ProblemOptions& options, bool allowInput) {
  auto* scene = command.add_option("--scene", options.scene,
                                   "initial conditions (kepler and figure-eight have 2 and 3 "
                                   "bodies whatever --bodies says)")
                    ->check(CLI::IsMember(sceneNames()))
                    ->capture_default_str();
  auto* bodies = command.add_option("--bodies,-n", options.bodies, "number of bodies N")
                     ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30))
                     ->capture_default_str();
  command.add_option("--seed", options.seed, "random seed of the scene")->capture_default_str();
  auto* eccentricity =
      command.add_option("--eccentricity", options.eccentricity, "eccentricity of the kepler scene")
          ->check(CLI::Range(0.0, 0.99))
          ->capture_default_str();
  if (allowInput)
    command
        .add_option("--input", options.input,
                    "start from this file: CSV (x,y,z,mass,vx,vy,vz), an nbody snapshot (.nbody: "
                    "its step, time, method, dt, softening and G apply unless given) or TIPSY")
        ->check(CLI::ExistingFile)
        ->excludes(scene)
        ->excludes(bodies)
        ->excludes(eccentricity);
}

void addStepOptions(CLI::App& command, StepParams& params) {
  command.add_option("--dt", params.dt, "time step h")->check(finitePositive())->capture_default_str();
  command.add_option("--softening", params.softening, "softening length epsilon (not epsilon^2)")
      ->check(finiteNonNegative())
      ->capture_default_str();
  command.add_option("--gravity,-G", params.gravity, "gravitational constant G")
      ->check(finitePositive())
      ->capture_default_str();
}

GivenSettings givenSettingsOf(const CLI::App& command) {
  const auto given = [&](const char* name) { return command.get_option(name)->count() > 0; };
  return {given("--method"), given("--dt"), given("--softening"), given("--gravity")};
}

RunSettings withGivenSettings(RunSettings saved, const GivenSettings& given, const std::string& method,
                              const StepParams& step) {
  if (given.method) saved.method = method;
  if (given.dt) saved.step.dt = step.dt;
  if (given.softening) saved.step.softening = step.softening;
  if (given.gravity) saved.step.gravity = step.gravity;
  return saved;
}

CLI::Option* addEngineOption(CLI::App& command, std::string& engine) {
  return command.add_option("--engine", engine, "which engine computes")
      ->check(CLI::IsMember(engineNames()))
      ->capture_default_str();
}

CLI::Option* addMethodOption(CLI::App& command, std::string& method) {
  return command.add_option("--method", method, "integration method")
      ->check(CLI::IsMember(methodNames()))
      ->capture_default_str();
}

Snapshot makeInitialSnapshot(const ProblemOptions& options) {
  if (!options.input.empty()) return readSnapshotFile(options.input);
  Snapshot start;
  start.state = findScene(options.scene)->generate(
      {.bodyCount = options.bodies, .seed = options.seed, .eccentricity = options.eccentricity});
  return start;
}

State makeInitialState(const ProblemOptions& options) { return makeInitialSnapshot(options).state; }

Snapshot makeInitialSnapshotFor(const Engine& engine, const ProblemOptions& options) {
  if (options.input.empty()) engine.checkCapacity(options.bodies);
  Snapshot snapshot = makeInitialSnapshot(options);
  engine.checkCapacity(snapshot.state.size());
  return snapshot;
}

std::unique_ptr<Engine> createEngine(const std::string& name, const std::vector<std::string>& settings) {
  const EngineEntry* entry = findEngine(name);
  if (!entry) throw std::invalid_argument("unknown engine " + name);
  std::unique_ptr<Engine> engine;
  try {
    engine = entry->create();
  } catch (const std::runtime_error& e) {
    if (entry->fallback.empty()) throw;
    std::fprintf(stderr, "nbody: the %s engine is not available (%s); using the %s engine\n",
                 entry->name.c_str(), e.what(), entry->fallback.c_str());
    engine = findEngine(entry->fallback)->create();
  }
  for (const std::string& setting : settings) {
    const auto equals = setting.find('=');
    engine->setOption(setting.substr(0, equals), setting.substr(equals + 1));
  }
  return engine;
}

EngineSession openEngine(const std::string& name, const std::vector<std::string>& settings,
                         std::unique_ptr<gl::HeadlessContext> context, bool withGlContext) {
  const EngineEntry* entry = findEngine(name);
  if (!entry) throw std::invalid_argument("unknown engine " + name);
  EngineSession session;
  session.context = std::move(context);
  if ((entry->needsGl || withGlContext) && !session.context) {
#ifdef NDEBUG
    const bool debug = std::getenv("NBODY_GL_DEBUG") != nullptr;
#else
    const bool debug = true;
#endif
    session.context = gl::HeadlessContext::create(debug);
    if (debug) gl::installDebugCallback();
  }
  session.engine = createEngine(name, settings);
  return session;
}

void addEngineSettingsOption(CLI::App& command, std::vector<std::string>& settings) {
  command.add_option("--set", settings,
                     "engine option NAME=VALUE, repeatable (e.g. unroll=4x4, bodies-per-fragment=4, "
                     "slices=16); `nbody engines` lists them")
      ->check([](const std::string& text) {
        return text.find('=') == std::string::npos ? "expected NAME=VALUE, got " + text : std::string();
      });
}

}  // namespace nbody
