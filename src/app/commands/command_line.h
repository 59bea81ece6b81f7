#pragma once
// nbody's command line: every command of the table (app/commands/command.h) with its options,
// parsed, and the checks of what was parsed that need neither an engine nor a file (two outputs
// that are one file, an output over an input). main runs what this parsed; the command-line fuzzer
// (tests/fuzz/command_line_fuzzer.cpp) parses and checks random argument vectors through the very
// same code.

#include <memory>
#include <ostream>
#include <string_view>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/commands/command.h"

namespace nbody {

// A command of the table with the object its options fill.
struct CommandEntry {
  const CommandRow* row = nullptr;
  CLI::App* parser =
      nullptr;  // its CLI11 subcommand; the program's own parser for the nameless row
  std::unique_ptr<Command> command;
};

// The options of every command, registered once with CLI11. Not copyable: the parser holds
// references into it.
struct CommandLine {
  CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // The entry of the command named `name` ("" for none).
  const CommandEntry& entry(std::string_view name) const;
  // The options of command `name`, as its row's Options type.
  template <typename Options>
  const Options& options(std::string_view name) const {
    return dynamic_cast<const CommandWith<Options>&>(*entry(name).command).options;
  }

  CLI::App app;
  std::vector<CommandEntry> entries;  // in the table's order
};

// Parses `argv`. Returns the command to run, or the exit code when there is none: 0 after --help
// (printed to `out`), 2 after a usage error (one line on `err`). Then checks what was parsed
// (checkBeforeRun), a usage error too.
std::variant<const CommandEntry*, int> parseCommandLine(CommandLine& line, int argc,
                                                        const char* const* argv, std::ostream& out,
                                                        std::ostream& err);

// The checks of a parsed command that need no engine and no file contents: no two outputs of the
// command are one file, and none is one of its inputs (where the command may not replace it).
// Throws UsageError.
void checkBeforeRun(const CommandEntry& entry);

}  // namespace nbody
