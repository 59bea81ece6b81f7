#pragma once
// nbody's command line: every command and its options, parsed, and the checks of what was parsed
// that need neither an engine nor a file (two outputs that are one file). main runs what this
// parsed; the command-line fuzzer (tests/fuzz/command_line_fuzzer.cpp) parses and checks random
// argument vectors through the very same code.

#include <memory>
#include <ostream>
#include <variant>

#include <CLI/CLI.hpp>

#include "app/accuracy_options.h"
#include "app/bench_options.h"
#include "app/compare_options.h"
#include "app/record_options.h"
#include "app/shot_options.h"
#include "app/simulate_options.h"
#include "app/window_command.h"

namespace nbody {

enum class Command {
  window,    // nbody run
  simulate,
  bench,
  engines,
  shot,
  record,
  compare,
  accuracy,
  mainJob,   // no command: the window where there is a display, else the benchmark
};

// The options of every command, registered once with CLI11. Not copyable: the parser holds
// references into it.
struct CommandLine {
  CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  SimulateOptions simulate;
  BenchOptions bench;
  ShotOptions shot;
  RecordOptions record;
  CompareOptions compare;
  AccuracyOptions accuracy;
  WindowOptions window;
  CLI::App app;
  CLI::App* runCommand = nullptr;
  CLI::App* simulateCommand = nullptr;
  CLI::App* benchCommand = nullptr;
  CLI::App* enginesCommand = nullptr;
  CLI::App* shotCommand = nullptr;
  CLI::App* recordCommand = nullptr;
  CLI::App* compareCommand = nullptr;
  CLI::App* accuracyCommand = nullptr;
};

// Parses `argv`. Returns the command to run, or the exit code when there is none: 0 after --help
// (printed to `out`), 2 after a usage error (one line on `err`). Then checks what was parsed
// (checkBeforeRun), a usage error too.
std::variant<Command, int> parseCommandLine(CommandLine& line, int argc, const char* const* argv, std::ostream& out,
                                            std::ostream& err);

// The checks of a parsed command line that need no engine and no file contents: no two outputs of
// the command are one file. Throws UsageError.
void checkBeforeRun(const CommandLine& line, Command command);

}  // namespace nbody
