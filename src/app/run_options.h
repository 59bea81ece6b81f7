#pragma once
// Pieces the commands share: their common options, the initial state they describe, and an engine
// together with the OpenGL context it runs in.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "engines/engine.h"
#include "gl/egl_context.h"
#include "io/snapshot.h"
#include "physics/state.h"

namespace nbody {

struct ProblemOptions {
  std::string scene = "plummer";
  std::size_t bodies = 16384;
  std::uint64_t seed = 1;
  double eccentricity = 0.5;  // kepler only
  std::string input;  // a CSV, nbody or TIPSY file; replaces scene, bodies and eccentricity
};

// --scene, --bodies, --seed, --eccentricity (and --input, excluding the scene options, when
// allowInput).
void addProblemOptions(CLI::App& command, ProblemOptions& options, bool allowInput);
// --dt, --softening, --gravity.
void addStepOptions(CLI::App& command, StepParams& params);

// Which settings the command line gave. The others come from an input snapshot that has them,
// so that a run continues as it was started.
struct GivenSettings {
  bool method = false, dt = false, softening = false, gravity = false;
};
// After parsing: which of --method, --dt, --softening and --gravity `command` was given.
GivenSettings givenSettingsOf(const CLI::App& command);
// A snapshot's settings with those the command line gave (`method`, `step`) in their place.
RunSettings withGivenSettings(RunSettings saved, const GivenSettings& given, const std::string& method,
                              const StepParams& step);
CLI::Option* addEngineOption(CLI::App& command, std::string& engine);
CLI::Option* addMethodOption(CLI::App& command, std::string& method);

// The input file, or the scene at step 0 (without settings: the command line has those).
Snapshot makeInitialSnapshot(const ProblemOptions& options);
State makeInitialState(const ProblemOptions& options);
// Makes the initial snapshot once `engine` said it can hold it: a scene's N is checked before the
// scene is generated, a file's after it is read.
Snapshot makeInitialSnapshotFor(const Engine& engine, const ProblemOptions& options);

// Makes engine `name` in the current OpenGL context (falling back to the registry's fallback
// engine, with a message, where the GPU lacks a feature) and applies the NAME=VALUE settings.
std::unique_ptr<Engine> createEngine(const std::string& name, const std::vector<std::string>& settings = {});

// An engine and, for the GPU engines, the headless OpenGL context it runs in.
struct EngineSession {
  std::unique_ptr<gl::HeadlessContext> context;
  std::unique_ptr<Engine> engine;
};
// `settings` are engine options NAME=VALUE; a context given is reused (several engines in a run);
// withGlContext makes the context even for an engine that does not need one (to draw its state).
EngineSession openEngine(const std::string& name, const std::vector<std::string>& settings = {},
                         std::unique_ptr<gl::HeadlessContext> context = nullptr,
                         bool withGlContext = false);
// --set NAME=VALUE, repeatable: engine options (see `nbody engines`).
void addEngineSettingsOption(CLI::App& command, std::vector<std::string>& settings);

// CLI11 check: a finite number > 0 (or >= 0).
CLI::Validator finitePositive();
CLI::Validator finiteNonNegative();

}  // namespace nbody
