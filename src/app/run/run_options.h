#pragma once
// The options every command that runs a simulation shares (simulate, shot, run, bench),
// registered once: the engine and its settings, the method, the problem (a scene with its
// parameters, or a file) and the step. The window's settings carry the same RunChoice, so a new
// scene parameter or engine setting reaches every command and the window by construction.

#include <cmath>
#include <string>
#include <vector>

#include "app/run/cli_declarations.h"

#include "app/run/run_choice.h"
#include "engines/engine.h"
#include "io/snapshot.h"
#include "parallel/ranks.h"
#include "physics/scenes.h"
#include "physics/state.h"
#include "util/number_text.h"

namespace nbody {

// Which of the settings a snapshot carries too the command line gave: those win over the file's,
// the others come from the file, so that a run continues as it was started.
struct GivenSettings {
  bool method = false, dt = false, softening = false, gravity = false, potential = false;
};

struct RunOptions {
  RunChoice choice;
  std::vector<std::string> engines{defaultEngineName()},
      methods{"euler"};  // bench: several (engines: or "all")
  std::string input;     // a CSV, nbody or TIPSY file to start from instead of the scene
  std::string
      potential;  // --potential's text (physics/external_potential.h), read with the run's G
  GivenSettings given;
};

// Where a run's problem comes from, for messages: the input file, or "the scene".
inline std::string problemSource(const RunOptions& options) {
  return options.input.empty() ? "the scene" : options.input;
}

// How a command takes them.
struct RunOptionsShape {
  bool several = false;               // --engine and --method are lists (bench)
  const char* inputOption = nullptr;  // the option naming a file to start from ("--input"), or none
};

void addRunOptions(CLI::App& command, RunOptions& options, RunOptionsShape shape);

// The settings the run goes on with: those the command line gave, else those of an input
// snapshot, else the command line's defaults (with the scene's seed). `holders`: the ranks whose
// `start` holds a part each of the bodies (a collective then), or one process holding them all.
RunSettings resolveRunSettings(const RunOptions& options, const Snapshot& start,
                               const Ranks& holders = processAlone());
// The external potential --potential gave, for a run with G = `gravity`; nothing where none was
// given.
SharedPotential givenPotential(const RunOptions& options, double gravity);
// Throws std::runtime_error naming `source` where no body has mass and no external potential moves
// them: nothing would happen. `holders` as for resolveRunSettings.
void checkSomethingPulls(const State& state, const SharedPotential& potential,
                         const std::string& source, const Ranks& holders = processAlone());
// A snapshot's settings with those the command line gave in their place.
RunSettings withGivenSettings(RunSettings saved, const GivenSettings& given,
                              const RunChoice& choice);

// The method of `settings`; throws naming `source` where this build does not offer it (a snapshot
// made by another build).
const Method& methodOf(const RunSettings& settings, const std::string& source);

// The input file, or the scene at step 0 (without settings: the command line has those).
Snapshot makeInitialSnapshot(const RunOptions& options);
// The same once `engine` said it can hold it: a scene's N is checked before the scene is
// generated, a file's after it is read.
Snapshot makeInitialSnapshotFor(const Engine& engine, const RunOptions& options);

// Every floating-point option of every command is registered through this, never with a bare
// add_option: the text is read as a T (float or double, as it is stored) by the one reader of
// numbers (util/number_text.h) and must be a finite number within `bounds` (positive(),
// nonNegative(), within()); the value stored is the value checked. Its type shows as NUMBER
// (tests/cpu/options_test.cpp walks every command to hold every option to this).
template <typename T>
CLI::Option* addNumberOption(CLI::App& command, const std::string& name, T& value,
                             const std::string& description, NumberBounds bounds);

// Every integer option (counts, sizes, the seed) likewise: decimal digits only, within
// [low, high], read as a T without wrapping (CLI11 alone takes `--seed -1` as 2^64 - 1 and
// answers `--bodies 1e3` with "not in range"). Its type shows as INTEGER.
template <typename T>
CLI::Option* addIntegerOption(CLI::App& command, const std::string& name, T& value,
                              const std::string& description, T low, T high,
                              bool showDefault = true);

// What every option naming a file to write takes: not empty, not ending in / (a folder).
CLI::Validator outputPath();
// What every option naming a file to read takes: something there, or a line naming why not (a
// loop of links, a folder on the way that cannot be searched) where CLI11 said "does not exist".
CLI::Validator inputPath();
// What an option taking an engine setting takes: NAME=VALUE, as parseEngineSetting reads it.
CLI::Validator engineSettingText();

}  // namespace nbody
