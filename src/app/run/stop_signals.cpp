#include "app/run/stop_signals.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include "io/stop_point.h"
#include "io/temporary_files.h"
#include "parallel/ranks.h"
#include "util/signal_lists.h"
#include "util/system_limits.h"

namespace nbody {
namespace {

volatile std::sig_atomic_t requestedSignal = 0;
volatile std::sig_atomic_t stopAtOnce = 0;

// The real-time signals' names (util/signal_lists.h), made before any can come, for the handler.
char realTimeNames[65][16] = {};

void nameRealTimeSignals() {
  for (int signal = SIGRTMIN; signal <= SIGRTMAX && signal < 65; ++signal) {
    if (signal == SIGRTMIN)
      std::snprintf(realTimeNames[signal], sizeof realTimeNames[signal], "SIGRTMIN");
    else if (signal == SIGRTMAX)
      std::snprintf(realTimeNames[signal], sizeof realTimeNames[signal], "SIGRTMAX");
    else
      std::snprintf(realTimeNames[signal], sizeof realTimeNames[signal], "SIGRTMIN+%d",
                    signal - SIGRTMIN);
  }
}

// What the handlers of the ending and fault signals (util/signal_lists.h) found installed (a
// sanitizer's): they put it back before the signal goes on. The faults' handler runs on a stack of
// its own, so that an overflowing stack is handled too.
struct sigaction previousActions[65];
// Made before any signal can come: what a crash may be due to, for its line.
char crashCause[512] = "";

// Async-signal-safe: only write() and strlen() on constant text.
void say(const char* text) noexcept {
  const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

extern "C" void onStopSignal(int signal) {
  if (requestedSignal == 0 && !stopAtOnce) {
    requestedSignal = signal;
    return;
  }
  temporaries::removeAllNow();
  say("nbody: stopped at once by ");
  say(signalName(signal));
  say(requestedSignal != 0 ? " (a second signal); unfinished outputs removed\n"
                           : "; unfinished outputs removed\n");
  ::_exit(128 + signal);
}

// How long a rank asked to stop may wait in one collective before it concludes that a peer is
// gone: the others reach any collective within a step's skew.
constexpr double kLongestWaitAfterStop = 0.5;

// A distributed rank asked to stop while a dead peer keeps it in a collective: its launcher kills
// it soon after the stop signal, so it removes its temporary files and ends first.
void watchForAStuckStop() {
  std::thread([] {
    while (true) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (requestedSignal != 0 && secondsInCollective() > kLongestWaitAfterStop) {
        temporaries::removeAllNow();
        ::_exit(128 + requestedSignal);
      }
    }
  }).detach();
}

bool takenAtDefaultOnly(int signal) {
  const auto& listed = kEndingSignalsAtDefault;
  return (signal >= SIGRTMIN && signal <= SIGRTMAX) ||
         std::find(std::begin(listed), std::end(listed), signal) != std::end(listed);
}

bool isFault(int signal) noexcept {
  for (const int fault : kFaultSignals)
    if (fault == signal) return true;
  return false;
}

// Removes the temporary files, then lets the signal do what it did before nbody came: its
// default action (ending the process with the signal's status, with a core file where that
// makes one) or the handler that was installed. A fault raised by the kernel comes again when the
// handler returns; one sent (kill, raise) is raised again.
extern "C" void onEndingSignal(int signal, siginfo_t* info, void*) {
  temporaries::removeAllNow();
  say("nbody: ended by ");
  say(signalName(signal));
  say(isFault(signal) ? " (a crash, in nbody or in a library it uses)" : "");
  say(isFault(signal) ? crashCause : "");
  say("; unfinished outputs removed\n");
  sigaction(signal, &previousActions[signal], nullptr);
  if (!isFault(signal) || info == nullptr || info->si_code <= 0) ::raise(signal);
}

// The limits a crash in a library may be due to, named in its line: set before it can come. A
// stack is named when below the usual 8 MiB.
void describeCrashCauses() {
  std::string causes;
  rlim_t stack = 0;
  for (const int resource : {RLIMIT_AS, RLIMIT_DATA, RLIMIT_STACK}) {
    if (resource == RLIMIT_STACK && (!softLimit(RLIMIT_STACK, &stack) || stack >= rlim_t(8) << 20))
      continue;
    const std::string limit = limitText(resource);
    if (!limit.empty()) causes += (causes.empty() ? "" : "; ") + limit;
  }
  if (!causes.empty()) causes = "; " + causes + ", which may be too low";
  std::strncpy(crashCause, causes.c_str(), sizeof crashCause - 1);
}

// A stack for the handlers of faults, so that they run when the stack overflowed. Kept where one
// was set up already (a sanitizer's).
void provideSignalStack() {
  stack_t current{};
  if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return;
  static std::vector<char> memory(std::size_t(1) << 16);
  stack_t stack{};
  stack.ss_sp = memory.data();
  stack.ss_size = memory.size();
  sigaltstack(&stack, nullptr);
}

}  // namespace

void installEndingHandlers() {
  describeCrashCauses();
  provideSignalStack();
  struct sigaction action {};
  action.sa_sigaction = onEndingSignal;
  sigfillset(&action.sa_mask);  // nothing interrupts the removal
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  // One that was ignored when nbody started (nohup, a background job) stays ignored; a real-time
  // signal a library has taken (one not at its default) stays its.
  for (const int signal : kEndingSignals)
    if (sigaction(signal, nullptr, &previousActions[signal]) == 0 &&
        previousActions[signal].sa_handler != SIG_IGN)
      sigaction(signal, &action, nullptr);
  nameRealTimeSignals();
  for (int signal = 1; signal <= SIGRTMAX && signal < 65; ++signal)
    if (takenAtDefaultOnly(signal) && sigaction(signal, nullptr, &previousActions[signal]) == 0 &&
        !(previousActions[signal].sa_flags & SA_SIGINFO) &&
        previousActions[signal].sa_handler == SIG_DFL)
      sigaction(signal, &action, nullptr);
  for (const int signal : kFaultSignals) sigaction(signal, &action, &previousActions[signal]);
}

void installStopHandlers(StopMode mode) {
  stopAtOnce = mode == StopMode::atOnce;
  struct sigaction action {};
  action.sa_handler = onStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // reads and writes go on; the run looks at the request itself
  for (const int signal : kStopSignals) sigaction(signal, &action, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);
  if (ranks().distributed()) watchForAStuckStop();
  // The readers' long work stops with the run (io/stop_point.h).
  setStopPoint(stopRequested,
               [](int signal, const std::string& what) { throw Stopped(signal, what); });
}

void endAtOnce(int signal, const char* cause) noexcept {
  temporaries::removeAllNow();
  say("nbody: stopped at once: ");
  say(cause);
  say("; unfinished outputs removed\n");
  ::_exit(128 + signal);
}

void watchOverARank(int argc, char** argv) {
  if (!launchedByMpi()) return;
  temporaries::startWatcher(argc, argv);
  if (const std::string segments = folderForThisRanksSegments(); !segments.empty())
    temporaries::removeFolderAtEnd(segments);
}

int stopRequested() noexcept { return requestedSignal; }

int agreedStop() {
  if (!ranks().distributed()) return stopRequested();
  const int agreed = int(ranks().maximum(std::int64_t(requestedSignal)));
  if (agreed != 0) requestedSignal = agreed;
  return agreed;
}
void clearStopRequest() noexcept { requestedSignal = 0; }

const char* signalName(int signal) noexcept {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGALRM:
      return "SIGALRM";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGVTALRM:
      return "SIGVTALRM";
    case SIGPROF:
      return "SIGPROF";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGABRT:
      return "SIGABRT";
    case SIGSYS:
      return "SIGSYS";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGIO:
      return "SIGIO";
    case SIGPWR:
      return "SIGPWR";
    case SIGSTKFLT:
      return "SIGSTKFLT";
    default:
      return signal > 0 && signal < 65 && realTimeNames[signal][0] != '\0' ? realTimeNames[signal]
                                                                           : "a signal";
  }
}

Stopped::Stopped(int signal, const std::string& what)
    : std::runtime_error(std::string("stopped by ") + signalName(signal) + " " + what),
      signal_(signal) {}

}  // namespace nbody
