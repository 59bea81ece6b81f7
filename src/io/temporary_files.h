#pragma once
// The temporary files nbody has open at any moment, in a list a signal handler may read: when a
// run must end at once (a second SIGINT or SIGTERM, SIGQUIT, a crash), the handler removes every
// one of them with unlink(), the only thing it can safely do, so no half-written file stays behind.
//
// The stop signals are blocked while a temporary file is created and remembered, and while one is
// renamed and forgotten, so the list never misses a file on the disk nor names a committed one.

#include <csignal>
#include <filesystem>

namespace nbody::temporaries {

// The signals whose handlers remove the temporary files (app/run/stop_signals.h): SIGINT, SIGTERM,
// SIGHUP, those that end a run at once (SIGQUIT, SIGALRM, SIGUSR1, ...), and those of a fault
// (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGSYS, SIGABRT). A fault signal sent by another process waits
// while a file is being made or renamed, as the others do (abort() unblocks its own); a real fault
// in that window cannot wait (Linux ends the process at once) and may leave that one file.
const sigset_t& stopSignals();

// Blocks the stop signals for its lifetime (in this thread: nbody writes files from one thread).
class StopSignalsBlocked {
 public:
  StopSignalsBlocked();
  ~StopSignalsBlocked();
  StopSignalsBlocked(const StopSignalsBlocked&) = delete;
  StopSignalsBlocked& operator=(const StopSignalsBlocked&) = delete;

 private:
  sigset_t previous_;
};

// Remembers `path` (absolute where it can be, since a handler cannot ask for the current folder;
// a relative one leads to the same file, as nbody never changes its working folder); returns its
// slot. Throws std::runtime_error when the list is full or the path too long for it.
int remember(const std::filesystem::path& path);
void forget(int slot);

// Removes every remembered file. Async-signal-safe: no allocation, no locks, only unlink().
void removeAllNow() noexcept;

// How many files are remembered now (for tests).
int count() noexcept;

// A watcher: a process of its own that outlives this one and, when this one ends by any means,
// removes the temporary files remembered at that moment and the folders given to
// removeFolderAtEnd. For a rank of a distributed run, which its launcher may end without its
// handlers running: mpirun kills every rank's process group with SIGKILL once a stop signal's
// grace is over, and after a second Ctrl-C or a SIGQUIT it dies at once and PMIx ends the ranks
// with _exit. The watcher is forked (call it first thing, before any thread starts) into a session
// of its own, so that no signal to this process's group reaches it; it holds no descriptor of this
// one but a pipe, over which remember() and forget() tell it each file, and whose end tells it
// that this process is gone. Its command line is cleared (`argv`'s words), so that it is not
// taken for this process. Where it cannot be started, nothing changes.
void startWatcher(int argc, char** argv);
void removeFolderAtEnd(const std::filesystem::path& folder);

}  // namespace nbody::temporaries
