// nbody: GPU N-body simulation by render-to-texture. The commands are the rows of
// app/commands/command.h's table: run (the interactive window), simulate, bench, engines, shot,
// record, compare, accuracy, and the main job when none is named.

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <variant>

#include <fcntl.h>
#include <unistd.h>

#include "app/commands/command_line.h"
#include "app/run/stop_signals.h"
#include "engines/engine.h"
#include "util/printable_text.h"

namespace {

// One line, whatever the message carries (a file name with a new line, bytes from a file).
void printError(const char* message) {
  std::fprintf(stderr, "nbody: %s\n", nbody::withoutControlCharacters(message).c_str());
}

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

}  // namespace

int main(int argc, char** argv) {
  fillClosedStandardStreams();
  nbody::CommandLine line;
  const auto parsed = nbody::parseCommandLine(line, argc, argv, std::cout, std::cerr);
  if (const int* exitCode = std::get_if<int>(&parsed)) return *exitCode;
  const nbody::CommandEntry& command = *std::get<const nbody::CommandEntry*>(parsed);
  nbody::installStopHandlers(command.row->stop);
  try {
    const int exitCode = command.command->run();
    // A stop that came once the outputs were published (they are complete) still ends with 128 + n.
    nbody::throwIfStopped([] { return std::string("once the outputs were written (they are complete)"); });
    return exitCode;
  } catch (const nbody::Stopped& e) {
    printError(e.what());
    return e.exitCode();
  } catch (const nbody::UsageError& e) {
    printError((std::string("error: ") + e.what()).c_str());
    return 2;  // usage error found once an engine was made (an engine option), or two outputs that are one file
  } catch (const std::exception& e) {
    printError((std::string("error: ") + e.what()).c_str());
    return 1;  // runtime failure
  }
}
