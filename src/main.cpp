// nbody: GPU N-body simulation by render-to-texture. Commands: run (the interactive window),
// simulate, bench, engines, shot, record, compare, accuracy.

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <variant>

#include <fcntl.h>
#include <unistd.h>

#include "app/accuracy_command.h"
#include "app/bench_command.h"
#include "app/command_line.h"
#include "app/compare_command.h"
#include "app/engines_command.h"
#include "app/record_command.h"
#include "app/shot_command.h"
#include "app/simulate_command.h"
#include "app/stop_signals.h"
#include "app/window_app.h"
#include "gl/window_context.h"
#include "util/printable_text.h"

namespace {

// The main job: the window where there is a display, the headless benchmark elsewhere.
int runMainJob(const nbody::CommandLine& line) {
  std::string why;
  if (nbody::gl::displayNamed(&why)) {
    try {
      return nbody::runWindow(line.window);
    } catch (const nbody::gl::WindowUnavailable& e) {
      why = e.what();
    }
  }
  std::fprintf(stderr, "nbody: no window (%s); running the headless benchmark instead\n", why.c_str());
  return nbody::runBench(line.bench);
}

int run(const nbody::CommandLine& line, nbody::Command command) {
  using nbody::Command;
  switch (command) {
    case Command::simulate: return nbody::runSimulate(line.simulate);
    case Command::bench: return nbody::runBench(line.bench);
    case Command::engines: return nbody::runEngines();
    case Command::shot: return nbody::runShot(line.shot);
    case Command::record: return nbody::runRecord(line.record);
    case Command::compare: return nbody::runCompare(line.compare);
    case Command::accuracy: return nbody::runAccuracy(line.accuracy);
    case Command::window: return nbody::runWindow(line.window);
    case Command::mainJob: return runMainJob(line);
  }
  return 1;
}

// Commands that advance a state look for a stop request between steps; the others end at once.
nbody::StopMode stopModeOf(nbody::Command command) {
  using nbody::Command;
  const bool steps = command != Command::engines && command != Command::compare && command != Command::accuracy;
  return steps ? nbody::StopMode::atStepBoundary : nbody::StopMode::atOnce;
}

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
  const std::variant<nbody::Command, int> parsed = nbody::parseCommandLine(line, argc, argv, std::cout, std::cerr);
  if (const int* exitCode = std::get_if<int>(&parsed)) return *exitCode;
  const nbody::Command command = std::get<nbody::Command>(parsed);
  nbody::installStopHandlers(stopModeOf(command));
  try {
    return run(line, command);
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
