// nbody: GPU N-body simulation by render-to-texture. The commands are the rows of
// app/commands/command.h's table: run (the interactive window), simulate, bench, engines, shot,
// record, compare, accuracy, and the main job when none is named. Under an MPI launcher every
// rank runs the same command (parallel/ranks.h); rank 0 alone prints and writes.

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <variant>

#include <fcntl.h>
#include <unistd.h>

#include "app/commands/command_line.h"
#include "app/run/stop_signals.h"
#include "engines/engine.h"
#include "parallel/ranks.h"
#include "util/printable_text.h"

namespace {

// A standard stream the caller closed (`2>&-`) leaves its descriptor free, and the next file
// nbody opens would take it: every progress line would go into that file. /dev/null takes the
// place of each closed one before anything is opened (open returns the lowest free descriptor).
void fillClosedStandardStreams() {
  for (int descriptor = STDIN_FILENO; descriptor <= STDERR_FILENO; ++descriptor) {
    if (::fcntl(descriptor, F_GETFD) != -1) continue;
    const int opened = ::open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY);
    if (opened != descriptor) std::_Exit(125);  // no /dev/null: nothing may be written safely
  }
}

// Ranks other than 0 print nothing: their standard output and error go to /dev/null. Returns a
// descriptor of the real standard error, for the line of a failure of this rank alone.
int silenceFollower() {
  const int error = ::dup(STDERR_FILENO);
  if (nbody::ranks().leader()) return error;
  const int null = ::open("/dev/null", O_WRONLY);
  ::dup2(null, STDOUT_FILENO);
  ::dup2(null, STDERR_FILENO);
  ::close(null);
  return error;
}

// One line, whatever the message carries (a file name with a new line, bytes from a file).
void printLine(int descriptor, const std::string& message) {
  const std::string line = "nbody: " + nbody::withoutControlCharacters(message) + "\n";
  if (::write(descriptor, line.data(), line.size()) < 0) return;
}

struct Outcome {
  int exitCode = 0;
  std::string message;  // of a failure or stop; empty when the command ran through
};

Outcome runCommand(const nbody::CommandEntry& command) {
  try {
    return {command.command->run(), ""};
  } catch (const nbody::Stopped& e) {
    return {e.exitCode(), e.what()};
  } catch (const nbody::UsageError& e) {
    // usage error found once an engine was made (an engine option), or two outputs that are one file
    return {2, std::string("error: ") + e.what()};
  } catch (const std::exception& e) {
    return {1, std::string("error: ") + e.what()};  // runtime failure
  }
}

// A failure every rank met (the same input, the same state) is said once, by rank 0; one met by
// this rank alone is said by it, naming it, and ends the ranks waiting for it.
int endRun(const Outcome& outcome, int errorDescriptor) {
  const nbody::Ranks& ranks = nbody::ranks();
  const bool failed = !outcome.message.empty();
  if (failed && ranks.distributed() && nbody::failedAlone()) {
    printLine(errorDescriptor, "rank " + std::to_string(ranks.rank()) + " of " + std::to_string(ranks.count()) +
                                   " (" + ranks.host() + "): " + outcome.message);
    nbody::abortRanks(outcome.exitCode);
  }
  if (failed && ranks.leader()) printLine(STDERR_FILENO, outcome.message);
  nbody::finishRanks();
  return outcome.exitCode;
}

}  // namespace

int main(int argc, char** argv) {
  fillClosedStandardStreams();
  try {
    nbody::startRanks(&argc, &argv);
  } catch (const std::exception& e) {
    printLine(STDERR_FILENO, std::string("error: ") + e.what());
    return 1;
  }
  const int errorDescriptor = silenceFollower();
  nbody::CommandLine line;
  const auto parsed = nbody::parseCommandLine(line, argc, argv, std::cout, std::cerr);
  if (const int* exitCode = std::get_if<int>(&parsed)) return endRun({*exitCode, ""}, errorDescriptor);
  const nbody::CommandEntry& command = *std::get<const nbody::CommandEntry*>(parsed);
  nbody::installStopHandlers(command.row->stop);
  return endRun(runCommand(command), errorDescriptor);
}
