#include "app/run/stop_signals.h"

#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

#include <unistd.h>

#include "io/temporary_files.h"
#include "parallel/ranks.h"

namespace nbody {
namespace {

volatile std::sig_atomic_t requestedSignal = 0;
volatile std::sig_atomic_t stopAtOnce = 0;

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
  if (signal != SIGPIPE) {  // a vanished reader is the ordinary end of `nbody ... | head`
    say("nbody: stopped at once by ");
    say(signalName(signal));
    say(requestedSignal != 0 ? " (a second signal); unfinished outputs removed\n" : "; unfinished outputs removed\n");
  }
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

}  // namespace

void installStopHandlers(StopMode mode) {
  stopAtOnce = mode == StopMode::atOnce;
  struct sigaction action {};
  action.sa_handler = onStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // reads and writes go on; the run looks at the request itself
  for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaction(signal, &action, nullptr);
  std::signal(SIGXFSZ, SIG_IGN);
  if (ranks().distributed()) watchForAStuckStop();
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
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGPIPE: return "SIGPIPE";
    default: return "a signal";
  }
}

Stopped::Stopped(int signal, const std::string& what)
    : std::runtime_error(std::string("stopped by ") + signalName(signal) + " " + what), signal_(signal) {}

}  // namespace nbody
