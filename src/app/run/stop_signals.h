#pragma once
// How a run ends early. SIGINT (Ctrl-C), SIGTERM and SIGHUP ask it to stop: the running command
// sees the request at its next step boundary (between chunks of steps, repetitions, frames),
// throws Stopped, and on the way out every output not yet committed removes its temporary file;
// what was committed before (snapshots along the way) stays. main prints Stopped's one line and
// exits with 128 + the signal (130 for SIGINT, 143 for SIGTERM). A second signal ends the process
// at once: the handler removes every temporary file (io/temporary_files.h) and exits with the same
// code. In a distributed run the ranks agree at each boundary (agreedStop) and stop at the same
// one; a rank kept waiting in a collective by a rank that died ends at once on a stop signal,
// removing its temporary files. The other signals whose default action ends a process (SIGQUIT,
// SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, ...) and the signals of a fault in nbody or a library it uses
// (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) end it at once, as they would have, with the signal's
// own status, after the handler removed the temporary files and said so in one line (for a fault:
// with the limits set on memory and stack, which a driver may have run into). SIGPIPE is ignored: a
// write into a pipe whose reader went away fails with EPIPE, which ends that output only. SIGXFSZ
// is ignored, so a write beyond the file-size limit fails with EFBIG instead of killing the process
// with its temporary files left.

#include <stdexcept>
#include <string>

namespace nbody {

enum class StopMode {
  atStepBoundary,  // simulate, bench, shot, record, run: the command polls stopRequested()
  atOnce,          // the other commands (engines, compare, accuracy), which never poll: the first
                   // signal ends the process
};

// The handlers of the signals that end nbody at once (SIGQUIT, ..., the faults): first thing in
// main. installStopHandlers, once the command is known: those of the stop signals, by `mode`.
void installEndingHandlers();
void installStopHandlers(StopMode mode);

// Under an MPI launcher: a watcher process (io/temporary_files.h) that removes this rank's
// temporary files and shared-memory segments when the launcher ends it without its handlers (a
// SIGKILL after a stop signal's grace, _exit after a second Ctrl-C or a SIGQUIT to mpirun).
// First thing in main, before any thread starts; nothing in a single process.
void watchOverARank(int argc, char** argv);

// Ends nbody at once, as a second stop signal does: every temporary file removed, one line
// "nbody: stopped at once: CAUSE; unfinished outputs removed", exit 128 + `signal`. For what
// cannot wait for a step boundary (the connection to the X server lost). Async-signal-safe.
[[noreturn]] void endAtOnce(int signal, const char* cause) noexcept;

// The signal that asked this process to stop, or 0.
int stopRequested() noexcept;
// The stop every rank of a distributed run sees alike: the largest signal any rank received, found
// at this call, which every rank makes at the same step boundary (a collective); once found, it
// is every rank's stopRequested() too. In a single process: stopRequested().
int agreedStop();
// "SIGINT", "SIGTERM", ...
const char* signalName(int signal) noexcept;

// A run that stopped on request. what() is the line main prints after "nbody: ".
class Stopped : public std::runtime_error {
 public:
  Stopped(int signal, const std::string& what);
  int signal() const { return signal_; }
  int exitCode() const { return 128 + signal_; }

 private:
  int signal_;
};

// Throws Stopped("stopped by SIGINT " + describe()) when a stop was asked for (of any rank:
// agreedStop(), so every rank of a distributed run calls it at the same boundary).
template <typename Describe>
void throwIfStopped(Describe describe) {
  if (const int signal = agreedStop()) throw Stopped(signal, describe());
}

// The same for work of rank 0 alone (its outputs' last writes in the window): this process's stop,
// no collective.
template <typename Describe>
void throwIfStoppedHere(Describe describe) {
  if (const int signal = stopRequested()) throw Stopped(signal, describe());
}

// For tests: forget a request, so that a process can ask again.
void clearStopRequest() noexcept;

}  // namespace nbody
