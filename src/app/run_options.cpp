#include "app/run_options.h"

#include <cmath>
#include <stdexcept>

#include "engines/registry.h"
#include "physics/method.h"

namespace nbody {
namespace {

// A finite number within [low, high], or > low where `lowIncluded` is false.
CLI::Validator finiteNumber(double low, double high, bool lowIncluded, std::string description) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0.0;
        try {
          std::size_t used = 0;
          value = std::stod(text, &used);
          if (used != text.size()) return "'" + text + "' is not a number";
        } catch (const std::exception&) {
          return "'" + text + "' is not a number";
        }
        if (!std::isfinite(value)) return "must be finite, got " + text;
        if (value < low || (!lowIncluded && value == low) || value > high)
          return "must be " + description + ", got " + text;
        return {};
      },
      "FINITE " + description);
}

void addEngineOptions(CLI::App& command, RunOptions& options, bool several) {
  std::vector<std::string> names = engineNames();
  if (several) {
    names.push_back("all");
    command.add_option("--engine", options.engines, "engines to time, comma separated, or all")
        ->delimiter(',')
        ->check(CLI::IsMember(names))
        ->capture_default_str();
  } else {
    command.add_option("--engine", options.choice.engine, "which engine computes")
        ->check(CLI::IsMember(names))
        ->capture_default_str();
  }
  command
      .add_option_function<std::vector<std::string>>(
          "--set",
          [&options](const std::vector<std::string>& settings) {
            for (const std::string& setting : settings) {
              auto [name, value] = parseEngineSetting(setting);
              options.choice.engineSettings[name] = value;
            }
          },
          "engine option NAME=VALUE, repeatable (e.g. unroll=4x4, bodies-per-fragment=4, slices=16); "
          "`nbody engines` lists them")
      ->check([](const std::string& text) {
        return text.find('=') == std::string::npos ? "expected NAME=VALUE, got " + text : std::string();
      });
}

void addMethodOption(CLI::App& command, RunOptions& options, bool several) {
  CLI::Option* method =
      several ? command.add_option("--method", options.methods, "integration methods, comma separated")->delimiter(',')
              : command.add_option("--method", options.choice.method, "integration method");
  method->check(CLI::IsMember(methodNames()))->capture_default_str()->each([&options](const std::string&) {
    options.given.method = true;
  });
}

void addSceneOptions(CLI::App& command, RunOptions& options, const char* inputOption) {
  SceneChoice& scene = options.choice.scene;
  std::vector<CLI::Option*> sceneOptions{
      command.add_option("--scene", scene.name, "initial conditions (kepler and figure-eight have 2 and 3 bodies "
                                                "whatever --bodies says)")
          ->check(CLI::IsMember(sceneNames()))
          ->capture_default_str(),
      command.add_option("--bodies,-n", scene.options.bodyCount, "number of bodies N")
          ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30))
          ->capture_default_str()};
  command.add_option("--seed", scene.options.seed, "random seed of the scene")->capture_default_str();
  for (const SceneParameter& parameter : sceneParameters())
    sceneOptions.push_back(command.add_option("--" + parameter.name, scene.options.*parameter.field, parameter.description)
                               ->check(finiteInRange(parameter.low, parameter.high))
                               ->capture_default_str());
  if (!inputOption) return;
  CLI::Option* input =
      command.add_option(inputOption, options.input,
                         "start from this file: CSV (x,y,z,mass,vx,vy,vz), an nbody snapshot (.nbody: its step, "
                         "time, method, dt, softening and G apply unless given) or TIPSY")
          ->check(CLI::ExistingFile);
  for (CLI::Option* sceneOption : sceneOptions) input->excludes(sceneOption);
}

void addStepOptions(CLI::App& command, RunOptions& options) {
  StepParams& step = options.choice.step;
  GivenSettings& given = options.given;
  command.add_option("--dt", step.dt, "time step h")
      ->check(finitePositive())
      ->capture_default_str()
      ->each([&given](const std::string&) { given.dt = true; });
  command.add_option("--softening", step.softening, "softening length epsilon (not epsilon^2)")
      ->check(finiteNonNegative())
      ->capture_default_str()
      ->each([&given](const std::string&) { given.softening = true; });
  command.add_option("--gravity,-G", step.gravity, "gravitational constant G")
      ->check(finitePositive())
      ->capture_default_str()
      ->each([&given](const std::string&) { given.gravity = true; });
}

}  // namespace

CLI::Validator finitePositive() { return finiteNumber(0.0, HUGE_VAL, false, "> 0"); }
CLI::Validator finiteNonNegative() { return finiteNumber(0.0, HUGE_VAL, true, ">= 0"); }
CLI::Validator finiteInRange(double low, double high) {
  return finiteNumber(low, high, true, "in [" + CLI::detail::to_string(low) + ", " + CLI::detail::to_string(high) + "]");
}

void addRunOptions(CLI::App& command, RunOptions& options, RunOptionsShape shape) {
  addEngineOptions(command, options, shape.several);
  addMethodOption(command, options, shape.several);
  addSceneOptions(command, options, shape.inputOption);
  addStepOptions(command, options);
}

RunSettings withGivenSettings(RunSettings saved, const GivenSettings& given, const RunChoice& choice) {
  if (given.method) saved.method = choice.method;
  if (given.dt) saved.step.dt = choice.step.dt;
  if (given.softening) saved.step.softening = choice.step.softening;
  if (given.gravity) saved.step.gravity = choice.step.gravity;
  return saved;
}

RunSettings resolveRunSettings(const RunOptions& options, const Snapshot& start) {
  if (start.settings) return withGivenSettings(*start.settings, options.given, options.choice);
  const std::uint64_t seed = options.input.empty() ? options.choice.scene.options.seed : 0;
  return {options.choice.method, options.choice.step, seed};
}

const Method& methodOf(const RunSettings& settings, const std::string& source) {
  if (const Method* method = findMethod(settings.method)) return *method;
  std::string offered;
  for (const std::string& known : methodNames()) offered += (offered.empty() ? "" : ", ") + known;
  throw std::runtime_error(source + " was made with method '" + settings.method +
                           "', which this build does not offer (" + offered + "); choose one with --method");
}

Snapshot makeInitialSnapshot(const RunOptions& options) {
  if (!options.input.empty()) return readSnapshotFile(options.input);
  Snapshot start;
  start.state = options.choice.scene.generate();
  return start;
}

Snapshot makeInitialSnapshotFor(const Engine& engine, const RunOptions& options) {
  if (options.input.empty()) engine.checkCapacity(options.choice.scene.options.bodyCount);
  Snapshot snapshot = makeInitialSnapshot(options);
  engine.checkCapacity(snapshot.state.size());
  return snapshot;
}

}  // namespace nbody
