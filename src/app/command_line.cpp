#include "app/command_line.h"

#include "app/output_plan.h"
#include "engines/engine.h"
#include "util/printable_text.h"

namespace nbody {
namespace {

Command parsedCommand(const CommandLine& line) {
  if (line.simulateCommand->parsed()) return Command::simulate;
  if (line.benchCommand->parsed()) return Command::bench;
  if (line.enginesCommand->parsed()) return Command::engines;
  if (line.shotCommand->parsed()) return Command::shot;
  if (line.recordCommand->parsed()) return Command::record;
  if (line.compareCommand->parsed()) return Command::compare;
  if (line.accuracyCommand->parsed()) return Command::accuracy;
  if (line.runCommand->parsed()) return Command::window;
  return Command::mainJob;
}

// CLI11's words where they are unclear: "--dt: At Most 1 required but received 2" means the
// option was given twice.
std::string clearer(const CLI::ParseError& error) {
  std::string message = error.what();
  const std::string twice = ": At Most 1 required but received ";
  if (const auto at = message.find(twice); at != std::string::npos)
    message = message.substr(0, at) + ": given " + message.substr(at + twice.size()) + " times; give it once";
  return withoutControlCharacters(message);
}

}  // namespace

CommandLine::CommandLine()
    : app("nbody-gl: N-body simulation on the GPU by render-to-texture.\n"
          "Without a command: the interactive window (nbody run) where a display exists, otherwise\n"
          "the benchmark at N = 16384 on the fragment engine (nbody bench).") {
  app.require_subcommand(0, 1);
  runCommand = addRunCommand(app, window);
  simulateCommand = addSimulateCommand(app, simulate);
  benchCommand = addBenchCommand(app, bench);
  enginesCommand = app.add_subcommand("engines", "list the engines, their options (for --set) and choices");
  shotCommand = addShotCommand(app, shot);
  recordCommand = addRecordCommand(app, record);
  compareCommand = addCompareCommand(app, compare);
  accuracyCommand = addAccuracyCommand(app, accuracy);
}

std::variant<Command, int> parseCommandLine(CommandLine& line, int argc, const char* const* argv, std::ostream& out,
                                            std::ostream& err) {
  try {
    line.app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return line.app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return line.app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << "nbody: error: " << clearer(e) << " (see --help)\n";
    return 2;
  }
  const Command command = parsedCommand(line);
  try {
    checkBeforeRun(line, command);
  } catch (const UsageError& e) {
    err << "nbody: error: " << withoutControlCharacters(e.what()) << "\n";
    return 2;
  }
  return command;
}

void checkBeforeRun(const CommandLine& line, Command command) {
  switch (command) {
    case Command::simulate:
      // The snapshots' steps depend on an input snapshot's step: simulate checks them once it is
      // read. The final state may replace the input (whole, once the run is over); diagnostics may not.
      checkDistinctOutputs(simulateOutputs(line.simulate));
      return checkDistinctOutputs({{"--diagnostics", line.simulate.diagnostics}}, std::nullopt,
                                  {{"--input", line.simulate.run.input}});
    case Command::bench:
    case Command::mainJob:
      return checkDistinctOutputs(benchOutputs(line.bench));
    case Command::compare:
      return checkDistinctOutputs(compareOutputs(line.compare), std::nullopt, compareInputs(line.compare));
    case Command::shot:
      return checkDistinctOutputs({{"--out", line.shot.output}}, std::nullopt, {{"--input", line.shot.run.input}});
    case Command::record:
      return checkDistinctOutputs({{"--out", line.record.drawing.output}}, std::nullopt,
                                  {{"--input", line.record.drawing.run.input}});
    case Command::accuracy:
      return checkDistinctOutputs({{"--json", line.accuracy.json}}, std::nullopt, {{"--input", line.accuracy.run.input}});
    case Command::window:
      return checkDistinctOutputs({{"--screenshot", line.window.screenshot}}, std::nullopt,
                                  {{"--load", line.window.run.input}});
    case Command::engines:
      return;
  }
}

}  // namespace nbody
