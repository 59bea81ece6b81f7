#pragma once
// The signals nbody handles, listed once: app/run/stop_signals.h installs their handlers, and
// io/temporary_files.h blocks every one of them while a temporary file is made or renamed.

#include <csignal>

namespace nbody {

// Ask the run to stop at its next step boundary.
inline constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
// End the process at once, their default action, once the temporary files are removed; taken
// unless ignored when nbody started.
inline constexpr int kEndingSignals[] = {SIGQUIT, SIGALRM,   SIGUSR1, SIGUSR2,
                                         SIGXCPU, SIGVTALRM, SIGPROF};
// The same, taken only where still at their default (a library may use them): these and the
// real-time signals, SIGRTMIN to SIGRTMAX, whose numbers the C library fixes at run time.
inline constexpr int kEndingSignalsAtDefault[] = {SIGTRAP, SIGIO, SIGPWR, SIGSTKFLT};
// Of a fault in nbody or in a library it uses.
inline constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS};

}  // namespace nbody
