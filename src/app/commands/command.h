#pragma once
// A command of nbody as one row of a table (command_table.cpp): its name and description, the
// options it registers, the files it reads and writes (declared in one place, from which the
// output layer's checks come), how it runs and how a signal stops it. A new command is its own
// file pair (NAME_command.h/.cpp: options, files, run) and one row.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/run/output_plan.h"
#include "app/run/stop_signals.h"

namespace nbody {

// One parsed command: the options the parser filled, and what they make of it.
class Command {
 public:
  virtual ~Command() = default;
  virtual CommandFiles files() const = 0;
  virtual int run() const = 0;
};

struct CommandRow {
  std::string name;         // as typed after nbody; empty: nbody with no command
  std::string description;  // the line --help shows
  StopMode stop;
  // Registers the command's options on `command` (its CLI11 subcommand, or the program itself for
  // the row without a name) and returns the object they fill.
  std::function<std::unique_ptr<Command>(CLI::App& command)> addOptions;
};

// A command whose options are an `Options`: the object the parser fills, run by free functions.
template <typename Options>
class CommandWith final : public Command {
 public:
  using Files = CommandFiles (*)(const Options&);
  using Run = int (*)(const Options&);
  CommandWith(Files declare, Run start) : files_(declare), run_(start) {}
  CommandFiles files() const override { return files_(options); }
  int run() const override { return run_(options); }

  Options options;

 private:
  Files files_;
  Run run_;
};

// The row of a command made of free functions: `add` registers the options, `files` declares what
// they make it read and write, `run` runs it.
template <typename Options>
CommandRow commandRow(std::string name, std::string description, StopMode stop,
                      void (*add)(CLI::App&, Options&), CommandFiles (*files)(const Options&),
                      int (*run)(const Options&)) {
  return {std::move(name), std::move(description), stop, [add, files, run](CLI::App& command) {
            auto parsed = std::make_unique<CommandWith<Options>>(files, run);
            add(command, parsed->options);
            return std::unique_ptr<Command>(std::move(parsed));
          }};
}

// Every command, in the order --help lists them; the row without a name last.
const std::vector<CommandRow>& commandTable();

}  // namespace nbody
