#include "app/run/run_options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <stdexcept>

#include <sys/stat.h>

#include <CLI/CLI.hpp>

#include "engines/registry.h"
#include "io/input_file.h"
#include "physics/method.h"
#include "util/comma_list.h"
#include "util/printable_text.h"

namespace nbody {
namespace {

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
            std::map<std::string, int> given;
            for (const std::string& setting : settings) ++given[parseEngineSetting(setting).first];
            for (const auto& [name, times] : given)  // as any option given twice (command_line.cpp)
              if (times > 1)
                throw CLI::ValidationError(
                    "--set " + name, "given " + std::to_string(times) + " times; give it once");
            for (const std::string& setting : settings) {
              auto [name, value] = parseEngineSetting(setting);
              options.choice.engineSettings[name] = value;
            }
          },
          "engine option NAME=VALUE, repeatable (e.g. unroll=4x4, bodies-per-fragment=4, "
          "slices=16); "
          "`nbody engines` lists them")
      ->check(engineSettingText());
}

void addMethodOption(CLI::App& command, RunOptions& options, bool several) {
  CLI::Option* method =
      several
          ? command.add_option("--method", options.methods, "integration methods, comma separated")
                ->delimiter(',')
          : command.add_option("--method", options.choice.method, "integration method");
  method->check(CLI::IsMember(methodNames()))
      ->capture_default_str()
      ->each([&options](const std::string&) { options.given.method = true; });
}

void addSceneOptions(CLI::App& command, RunOptions& options, const char* inputOption) {
  SceneChoice& scene = options.choice.scene;
  std::vector<CLI::Option*> sceneOptions{
      command
          .add_option("--scene", scene.name,
                      "initial conditions (kepler and figure-eight have 2 and 3 bodies "
                      "whatever --bodies says)")
          ->check(CLI::IsMember(sceneNames()))
          ->capture_default_str(),
      addIntegerOption<std::size_t>(command, "--bodies,-n", scene.options.bodyCount,
                                    "number of bodies N", 1, kLargestBodyCount),
      addIntegerOption<std::uint64_t>(command, "--seed", scene.options.seed,
                                      "random seed of the scene", 0,
                                      std::numeric_limits<std::uint64_t>::max())};
  for (const SceneParameter& parameter : sceneParameters())
    sceneOptions.push_back(addNumberOption(command, "--" + parameter.name,
                                           scene.options.*parameter.field, parameter.description,
                                           within(parameter.low, parameter.high)));
  if (!inputOption) return;
  CLI::Option* input =
      command.add_option(inputOption, options.input, "start from this file: " + inputFormatsHelp())
          ->check(inputPath());
  for (CLI::Option* sceneOption : sceneOptions) input->excludes(sceneOption);
}

void addStepOptions(CLI::App& command, RunOptions& options) {
  StepParams& step = options.choice.step;
  GivenSettings& given = options.given;
  addNumberOption(command, "--dt", step.dt, "time step h", positive())
      ->each([&given](const std::string&) { given.dt = true; });
  addNumberOption(command, "--softening", step.softening,
                  "softening length epsilon (not epsilon^2)", nonNegative())
      ->each([&given](const std::string&) { given.softening = true; });
  addNumberOption(command, "--gravity,-G", step.gravity, "gravitational constant G", positive())
      ->each([&given](const std::string&) { given.gravity = true; });
  const CLI::Validator readable(
      [](std::string& text) -> std::string {
        try {
          ExternalPotential::parse(text);
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      "SPEC");
  command
      .add_option("--potential", options.potential,
                  "an external potential: components joined by +, each NAME:key=value,... "
                  "(point, plummer, hernquist, nfw, miyamoto-nagai, logarithmic, power-cutoff) "
                  "or the preset mw2014; docs/potentials.md")
      ->check(readable)
      ->each([&given](const std::string&) { given.potential = true; });
}

}  // namespace

template <typename T>
CLI::Option* addIntegerOption(CLI::App& command, const std::string& name, T& value,
                              const std::string& description, T low, T high, bool showDefault) {
  const CLI::Validator check(
      [low, high](std::string& text) {
        T ignored{};
        return readInteger(text, low, high, ignored);
      },
      "in [" + std::to_string(low) + ", " + std::to_string(high) + "]");
  CLI::Option* option =
      command
          .add_option_function<std::string>(
              name,
              [&value, low, high](const std::string& text) { readInteger(text, low, high, value); },
              description)
          ->check(check)
          ->type_name("INTEGER");
  return showDefault ? option->default_str(std::to_string(value)) : option;
}
template CLI::Option* addIntegerOption(CLI::App&, const std::string&, int&, const std::string&, int,
                                       int, bool);
template CLI::Option* addIntegerOption(CLI::App&, const std::string&, long long&,
                                       const std::string&, long long, long long, bool);
template CLI::Option* addIntegerOption(CLI::App&, const std::string&, unsigned long&,
                                       const std::string&, unsigned long, unsigned long, bool);

template <typename T>
CLI::Option* addNumberOption(CLI::App& command, const std::string& name, T& value,
                             const std::string& description, NumberBounds bounds) {
  const CLI::Validator check(
      [bounds](std::string& text) {
        T ignored{};
        return readNumber(text, bounds, ignored);
      },
      boundsText(bounds));
  return command
      .add_option_function<std::string>(
          name, [&value, bounds](const std::string& text) { readNumber(text, bounds, value); },
          description)
      ->check(check)
      ->type_name("NUMBER")
      ->default_str(CLI::detail::to_string(value));
}
template CLI::Option* addNumberOption(CLI::App&, const std::string&, float&, const std::string&,
                                      NumberBounds);
template CLI::Option* addNumberOption(CLI::App&, const std::string&, double&, const std::string&,
                                      NumberBounds);

CLI::Validator outputPath() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        if (path.empty()) return "an empty path names no file";
        if (path.back() == '/') return "'" + path + "' ends in /, so it names a folder, not a file";
        return {};
      },
      "FILE");
}

CLI::Validator engineSettingText() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          parseEngineSetting(text);
          return {};
        } catch (const std::exception& e) {
          return e.what();
        }
      },
      "");
}

CLI::Validator inputPath() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        struct stat status;
        if (::stat(path.c_str(), &status) == 0) return {};
        if (errno == ENOENT) return "File does not exist: " + path;  // CLI11's words
        return path + ": " + whyUnreachable(path, errno);
      },
      "FILE");
}

void addRunOptions(CLI::App& command, RunOptions& options, RunOptionsShape shape) {
  addEngineOptions(command, options, shape.several);
  addMethodOption(command, options, shape.several);
  addSceneOptions(command, options, shape.inputOption);
  addStepOptions(command, options);
}

RunSettings withGivenSettings(RunSettings saved, const GivenSettings& given,
                              const RunChoice& choice) {
  if (given.method) saved.method = choice.method;
  if (given.dt) saved.step.dt = choice.step.dt;
  if (given.softening) saved.step.softening = choice.step.softening;
  if (given.gravity) saved.step.gravity = choice.step.gravity;
  return saved;
}

SharedPotential givenPotential(const RunOptions& options, double gravity) {
  if (!options.given.potential) return nullptr;
  return std::make_shared<const ExternalPotential>(
      ExternalPotential::parse(options.potential, gravity));
}

void checkSomethingPulls(const State& state, const SharedPotential& potential,
                         const std::string& source, const Ranks& holders) {
  if (potential) return;  // test particles in a background potential
  const bool pulls = std::any_of(state.positionMass.begin(), state.positionMass.end(),
                                 [](const glm::vec4& body) { return body.w > 0.0f; });
  if (holders.maximum(pulls ? 1 : 0) > 0) return;
  throw std::runtime_error(source +
                           ": every mass is zero, and without --potential nothing would move");
}

// The run's settings before the external potential (which is read with the G they settle on).
static RunSettings resolveSettingsButPotential(const RunOptions& options, const Snapshot& start) {
  if (start.settings) return withGivenSettings(*start.settings, options.given, options.choice);
  const std::uint64_t seed = options.input.empty() ? options.choice.scene.options.seed : 0;
  RunSettings settings{options.choice.method, options.choice.step, seed};
  const std::string units =
      takeFileGravity(start, options.input, options.given.gravity, settings.step);
  if (!units.empty()) std::fprintf(stderr, "units: %s\n", units.c_str());
  return settings;
}

RunSettings resolveRunSettings(const RunOptions& options, const Snapshot& start,
                               const Ranks& holders) {
  RunSettings settings = resolveSettingsButPotential(options, start);
  if (options.given.potential)
    settings.step.potential = givenPotential(options, settings.step.gravity);
  checkSomethingPulls(start.state, settings.step.potential, problemSource(options), holders);
  // A snapshot made in a potential keeps the clock its run counted from, so that a moving
  // potential is where it would have been without the stop; with another dt, or without one,
  // the time counts from the start's.
  const bool keepsClock = start.settings && start.settings->step.potential &&
                          start.settings->step.dt == settings.step.dt;
  if (!keepsClock) {
    settings.step.startTime = start.time;
    settings.step.stepsDone = 0;
  }
  return settings;
}

const Method& methodOf(const RunSettings& settings, const std::string& source) {
  if (const Method* method = findMethod(settings.method)) return *method;
  throw std::runtime_error(source + " was made with method '" + printable(settings.method) +
                           "', which this build does not offer (" + joined(methodNames(), ", ") +
                           "); choose one with --method");
}

Snapshot makeInitialSnapshot(const RunOptions& options) {
  if (!options.input.empty()) return readSnapshotFile(options.input);
  Snapshot start;
  start.state = options.choice.scene.generate();
  return start;
}

Snapshot makeInitialSnapshotFor(const Engine& engine, const RunOptions& options) {
  if (options.input.empty()) engine.checkCapacity(options.choice.scene.bodyCount());
  Snapshot snapshot = makeInitialSnapshot(options);
  engine.checkCapacity(snapshot.state.size());
  return snapshot;
}

}  // namespace nbody
