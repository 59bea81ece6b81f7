// nbody: GPU N-body simulation by render-to-texture. The commands are the rows of
// app/commands/command.h's table: run (the interactive window), simulate, bench, engines, shot,
// record, compare, accuracy, and the main job when none is named. Under an MPI launcher every
// rank runs the same command (parallel/ranks.h); rank 0 alone prints and writes.

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "app/commands/command_line.h"
#include "app/run/engine_session.h"
#include "app/run/rank_agreement.h"
#include "app/run/stop_signals.h"
#include "engines/engine.h"
#include "failed_allocation.h"
#include "parallel/ranks.h"
#include "util/detailed_error.h"
#include "util/huge_pages.h"
#include "util/printable_text.h"
#include "util/system_limits.h"

namespace {

// One line, whatever the message carries (a file name with a new line, bytes from a file).
void printError(const char* message) {
  std::fprintf(stderr, "nbody: %s\n", nbody::withoutControlCharacters(message).c_str());
}

// The same through a descriptor, for a rank whose standard error is /dev/null (silenceFollower).
void printLine(int descriptor, const std::string& text) {
  if (::write(descriptor, text.data(), text.size()) < 0) return;
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
  printError(("error: " + nbody::limitText(RLIMIT_STACK) + ", below the " +
              nbody::bytesText(double(kSmallestStack)) +
              " nbody needs (its threads and the OpenGL driver's get stacks of that size): raise "
              "it with ulimit -s")
                 .c_str());
  return true;
}

// "std::bad_alloc" alone says neither how much was asked for nor why it could not be had.
std::string outOfMemory() {
  const std::string limits = nbody::limitsBehind(ENOMEM);
  const double free = double(::sysconf(_SC_AVPHYS_PAGES)) * double(::sysconf(_SC_PAGESIZE));
  return "out of memory: a request for " + nbody::bytesText(double(nbody::lastFailedAllocation())) +
         " could not be met (" + (limits.empty() ? "" : limits + "; ") + nbody::bytesText(free) +
         " of memory are free)";
}

// A thread that could not be started says so, with the limit behind it.
std::string systemFailure(const std::system_error& e) {
  const int error = e.code().value();
  if (e.code().category() == std::generic_category() ||
      e.code().category() == std::system_category())
    return error == EAGAIN ? "a thread could not be started: " + nbody::errorText(error)
                           : nbody::errorText(error);
  return e.what();
}

// What a command ended with: its exit code and, for a failure or stop, the lines that say why
// (the first after "nbody: ", details indented).
struct Outcome {
  int exitCode = 0;
  std::vector<std::string> lines;
};

Outcome failure(int exitCode, const std::string& message) { return {exitCode, {message}}; }

Outcome detailed(const nbody::DetailedError& e) {
  Outcome outcome =
      failure(1, std::string("error: ") + e.headline());  // runtime failure, told line by line
  for (const std::string& detail : e.details()) outcome.lines.push_back("  " + detail);
  return outcome;
}

Outcome runCommand(const nbody::CommandEntry& command) {
  try {
    const int exitCode = command.command->run();
    // A stop that came once the outputs were published (they are complete) still ends with 128 + n.
    nbody::throwIfStopped(
        [] { return std::string("once the outputs were written (they are complete)"); });
    return {exitCode, {}};
  } catch (const nbody::Stopped& e) {
    return failure(e.exitCode(), e.what());
  } catch (const nbody::DetailedError& e) {
    return detailed(e);
  } catch (const std::bad_alloc&) {
    return failure(1, "error: " + outOfMemory());
  } catch (const std::system_error& e) {
    return failure(1, "error: " + systemFailure(e));
  } catch (const nbody::UsageError& e) {
    // usage error found once an engine was made (an engine option), or two outputs that are one
    // file
    return failure(2, std::string("error: ") + e.what());
  } catch (const std::exception& e) {
    return failure(1, std::string("error: ") + e.what());  // runtime failure
  }
}

void printOutcome(int descriptor, const Outcome& outcome, const std::string& prefix) {
  for (std::size_t k = 0; k < outcome.lines.size(); ++k)
    printLine(descriptor, (k == 0 ? "nbody: " + prefix : std::string()) +
                              nbody::withoutControlCharacters(outcome.lines[k]) + "\n");
}

// The ranks of a distributed run parse the same words, but a file named on them may be missing on
// another node: if any rank's parsing ends the run (help, a usage error), every rank ends with the
// largest exit code, and rank 0 says so when its own parsing went through. -1: run the command.
int agreeOnParsing(const std::variant<const nbody::CommandEntry*, int>& parsed) {
  const int own = std::holds_alternative<int>(parsed) ? std::get<int>(parsed) : -1;
  const int agreed = int(nbody::ranks().maximum(own));
  if (agreed > 0 && own < 0 && nbody::ranks().leader())
    printError(
        "error: another rank could not take the command line (a file it names may be missing on "
        "that "
        "rank's node)");
  return agreed;
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

// A failure every rank met (the same input, the same state) is said once, by rank 0; one met by
// this rank alone is said by it, naming it, and ends the ranks waiting for it.
int endRun(const Outcome& outcome, int errorDescriptor) {
  const nbody::Ranks& ranks = nbody::ranks();
  const bool failed = !outcome.lines.empty();
  if (failed && ranks.distributed() && nbody::failedAlone()) {
    printOutcome(errorDescriptor, outcome,
                 "rank " + std::to_string(ranks.rank()) + " of " + std::to_string(ranks.count()) +
                     " (" + ranks.host() + "): ");
    nbody::abortRanks(outcome.exitCode);
  }
  if (failed && ranks.leader()) printOutcome(STDERR_FILENO, outcome, "");
  nbody::finishRanks();
  return outcome.exitCode;
}

// Executes nbody again with glibc's malloc asking for transparent huge pages (util/huge_pages.h),
// the same arguments, streams and process, where it does not ask yet; goes on as it is where that
// cannot be done.
void againWithHugePages(char** argv) {
#if defined(__linux__) && defined(__GLIBC__)
  const char* given = std::getenv("GLIBC_TUNABLES");
  const std::optional<std::string> tunables = nbody::tunablesWithHugePages(given);
  if (!tunables || std::getenv(nbody::kHugePagesAsked)) return;
  const std::optional<std::string> before =
      given ? std::optional<std::string>(given) : std::nullopt;
  if (::setenv("GLIBC_TUNABLES", tunables->c_str(), 1) == 0 &&
      ::setenv(nbody::kHugePagesAsked, "1", 1) == 0)
    ::execv("/proc/self/exe", argv);  // returns only where it failed: the variables as they were
  if (before)
    ::setenv("GLIBC_TUNABLES", before->c_str(), 1);
  else
    ::unsetenv("GLIBC_TUNABLES");
  ::unsetenv(nbody::kHugePagesAsked);
#else
  (void)argv;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  againWithHugePages(argv);  // first: nothing started yet that an exec would lose
  fillClosedStandardStreams();
  if (stackTooSmall()) return 1;
  nbody::watchOverARank(argc, argv);  // before any thread starts, MPI's included
  try {
    nbody::startRanks(&argc, &argv);
  } catch (const std::exception& e) {
    printError((std::string("error: ") + e.what()).c_str());
    return 1;
  }
  // After MPI's start, whose library installs fault handlers of its own: ours chain to them.
  nbody::installEndingHandlers();  // a crash from here on removes the temporary files
  const int errorDescriptor = silenceFollower();
  if (const std::string difference = nbody::firstRankDifference(argc, argv); !difference.empty()) {
    if (nbody::ranks().leader()) printError(("error: " + difference).c_str());
    return endRun({2, {}}, errorDescriptor);  // a usage error, alike on every rank
  }
  nbody::CommandLine line;
  const auto parsed = nbody::parseCommandLine(line, argc, argv, std::cout, std::cerr);
  if (const int exitCode = agreeOnParsing(parsed); exitCode >= 0)
    return endRun({exitCode, {}}, errorDescriptor);
  const nbody::CommandEntry& command = *std::get<const nbody::CommandEntry*>(parsed);
  nbody::installStopHandlers(command.row->stop);
  nbody::dumpProgramsWhereAsked();
  return endRun(runCommand(command), errorDescriptor);
}
