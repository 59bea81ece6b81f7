// nbody: GPU N-body simulation by render-to-texture. The commands are the rows of
// app/commands/command.h's table: run (the interactive window), simulate, bench, engines, shot,
// record, compare, accuracy, and the main job when none is named.

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>
#include <system_error>
#include <variant>

#include <fcntl.h>
#include <unistd.h>

#include "app/commands/command_line.h"
#include "app/run/stop_signals.h"
#include "engines/engine.h"
#include "failed_allocation.h"
#include "util/detailed_error.h"
#include "util/printable_text.h"
#include "util/system_limits.h"

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

// Below this, the parser itself, the CPU engine's threads and the OpenGL driver's (whose stacks are
// the limit's size) overflow their stacks: said before any of them runs. A limit far smaller
// (8 KiB) fails in the dynamic loader, before main.
constexpr rlim_t kSmallestStack = rlim_t(256) << 10;

bool stackTooSmall() {
  rlim_t stack = 0;
  if (!nbody::softLimit(RLIMIT_STACK, &stack) || stack >= kSmallestStack) return false;
  printError(("error: " + nbody::limitText(RLIMIT_STACK) + ", below the " + nbody::bytesText(double(kSmallestStack)) +
              " nbody needs (its threads and the OpenGL driver's get stacks of that size): raise it with ulimit -s")
                 .c_str());
  return true;
}

// "std::bad_alloc" alone says neither how much was asked for nor why it could not be had.
std::string outOfMemory() {
  const std::string limits = nbody::limitsBehind(ENOMEM);
  const double free = double(::sysconf(_SC_AVPHYS_PAGES)) * double(::sysconf(_SC_PAGESIZE));
  return "out of memory: a request for " + nbody::bytesText(double(nbody::lastFailedAllocation())) + " could not be met (" +
         (limits.empty() ? "" : limits + "; ") + nbody::bytesText(free) + " of memory are free)";
}

// A thread that could not be started says so, with the limit behind it.
std::string systemFailure(const std::system_error& e) {
  const int error = e.code().value();
  if (e.code().category() == std::generic_category() || e.code().category() == std::system_category())
    return error == EAGAIN ? "a thread could not be started: " + nbody::errorText(error) : nbody::errorText(error);
  return e.what();
}

void printDetails(const nbody::DetailedError& e) {
  printError((std::string("error: ") + e.headline()).c_str());
  for (const std::string& detail : e.details())
    std::fprintf(stderr, "  %s\n", nbody::withoutControlCharacters(detail).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  fillClosedStandardStreams();
  if (stackTooSmall()) return 1;
  nbody::installEndingHandlers();  // a crash from here on removes the temporary files
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
  } catch (const nbody::DetailedError& e) {
    printDetails(e);
    return 1;  // runtime failure, told line by line
  } catch (const std::bad_alloc&) {
    printError(("error: " + outOfMemory()).c_str());
    return 1;
  } catch (const std::system_error& e) {
    printError(("error: " + systemFailure(e)).c_str());
    return 1;
  } catch (const nbody::UsageError& e) {
    printError((std::string("error: ") + e.what()).c_str());
    return 2;  // usage error found once an engine was made (an engine option), or two outputs that are one file
  } catch (const std::exception& e) {
    printError((std::string("error: ") + e.what()).c_str());
    return 1;  // runtime failure
  }
}
