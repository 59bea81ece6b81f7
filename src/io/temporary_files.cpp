#include "io/temporary_files.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "util/signal_lists.h"

namespace nbody::temporaries {
namespace {

// A slot is free, being filled (not yet visible to the handler) or holds a live path.
enum SlotState : int { kFree = 0, kFilling = 1, kLive = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX] = {};
};

// A run has a few outputs open at once; snapshots and pictures are one at a time.
constexpr std::size_t kSlots = 64;
std::array<Slot, kSlots> slots;

static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads the slots' states");

sigset_t makeStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (const auto& list :
       {std::span<const int>(kStopSignals), std::span<const int>(kEndingSignals),
        std::span<const int>(kEndingSignalsAtDefault), std::span<const int>(kFaultSignals)})
    for (const int signal : list) sigaddset(&set, signal);
  for (int signal = SIGRTMIN; signal <= SIGRTMAX; ++signal) sigaddset(&set, signal);
  return set;
}

// The watcher's end of the pipe in this process (-1: none), and what it is told: an operation, a
// length and a path.
int watcherPipe = -1;
std::mutex watcherUse;
enum WatcherOperation : char { kAddFile = '+', kRemoveFile = '-', kAddFolder = 'd' };

void tellWatcher(WatcherOperation operation, const std::string& path) {
  if (watcherPipe < 0) return;
  const std::lock_guard lock(watcherUse);
  std::string message(1, char(operation));
  const std::uint32_t length = std::uint32_t(path.size());
  message.append(reinterpret_cast<const char*>(&length), sizeof length).append(path);
  for (std::size_t sent = 0; sent < message.size();) {
    const ssize_t count = ::write(watcherPipe, message.data() + sent, message.size() - sent);
    if (count > 0)
      sent += std::size_t(count);
    else if (errno != EINTR)
      return;  // the watcher is gone: nothing more to tell
  }
}

// The watcher's messages, parsed as they come; what is left when the pipe ends.
struct Watched {
  std::set<std::string> files, folders;
  std::string pending;

  void take(const char* bytes, std::size_t size) {
    pending.append(bytes, size);
    std::size_t at = 0;
    while (pending.size() - at >= 1 + sizeof(std::uint32_t)) {
      std::uint32_t length = 0;
      std::memcpy(&length, pending.data() + at + 1, sizeof length);
      if (pending.size() - at - 1 - sizeof length < length) break;
      const std::string path = pending.substr(at + 1 + sizeof length, length);
      if (pending[at] == kAddFile)
        files.insert(path);
      else if (pending[at] == kRemoveFile)
        files.erase(path);
      else if (pending[at] == kAddFolder)
        folders.insert(path);
      at += 1 + sizeof length + length;
    }
    pending.erase(0, at);
  }
};

[[noreturn]] void watch(int pipe) {
  Watched watched;
  char chunk[1 << 14];
  while (true) {
    const ssize_t count = ::read(pipe, chunk, sizeof chunk);
    if (count > 0)
      watched.take(chunk, std::size_t(count));
    else if (count == 0 || errno != EINTR)
      break;
  }
  for (const std::string& file : watched.files) ::unlink(file.c_str());
  std::error_code ignored;
  for (const std::string& folder : watched.folders) std::filesystem::remove_all(folder, ignored);
  ::_exit(0);
}

// Closes every descriptor from `first` on: by close_range where the C library has it (glibc 2.34).
void closeFrom(int first) {
#if defined(__GLIBC__)
  if (::close_range(unsigned(first), ~0U, 0) == 0) return;
#endif
  for (int fd = first; fd < 4096; ++fd) ::close(fd);
}

// The watcher's own start: a session of its own, no signal that ends a process, nothing of its
// parent's open but the pipe, and no words that name what the parent runs.
[[noreturn]] void becomeWatcher(int pipe, int argc, char** argv) {
  ::setsid();
  for (int signal = 1; signal < NSIG; ++signal)
    if (signal != SIGKILL && signal != SIGSTOP) std::signal(signal, SIG_IGN);
  const int null = ::open("/dev/null", O_RDWR);
  for (int standard = 0; standard <= 2; ++standard) ::dup2(null, standard);
  const int kept = ::fcntl(pipe, F_DUPFD, 3);
  if (::dup2(kept, 3) < 0) ::_exit(1);
  closeFrom(4);
  for (int k = 1; k < argc; ++k) std::memset(argv[k], 0, std::strlen(argv[k]));
  watch(3);
}

}  // namespace

void startWatcher(int argc, char** argv) {
  int ends[2];
  if (watcherPipe >= 0 || ::pipe2(ends, O_CLOEXEC) != 0) return;
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(ends[1]);
    becomeWatcher(ends[0], argc, argv);
  }
  ::close(ends[0]);
  if (child < 0) {
    ::close(ends[1]);
    return;
  }
  watcherPipe = ends[1];
  // The watcher is no child to wait for: it ends on its own when this process does.
}

void removeFolderAtEnd(const std::filesystem::path& folder) {
  tellWatcher(kAddFolder, folder.native());
}

const sigset_t& stopSignals() {
  static const sigset_t set = makeStopSignals();
  return set;
}

StopSignalsBlocked::StopSignalsBlocked() { pthread_sigmask(SIG_BLOCK, &stopSignals(), &previous_); }
StopSignalsBlocked::~StopSignalsBlocked() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

int remember(const std::filesystem::path& path) {
  const std::string& text = path.native();
  if (text.size() >= PATH_MAX) throw std::runtime_error("temporary path too long: " + text);
  for (std::size_t k = 0; k < kSlots; ++k) {
    int expected = kFree;
    if (!slots[k].state.compare_exchange_strong(expected, kFilling)) continue;
    std::memcpy(slots[k].path, text.c_str(), text.size() + 1);
    slots[k].state.store(kLive, std::memory_order_release);
    tellWatcher(kAddFile, text);
    return int(k);
  }
  throw std::runtime_error("more than " + std::to_string(kSlots) + " temporary files open at once");
}

void forget(int slot) {
  if (slot < 0 || std::size_t(slot) >= kSlots) return;
  tellWatcher(kRemoveFile, slots[std::size_t(slot)].path);
  slots[std::size_t(slot)].state.store(kFree, std::memory_order_release);
}

void removeAllNow() noexcept {
  for (Slot& slot : slots)
    if (slot.state.load(std::memory_order_acquire) == kLive) ::unlink(slot.path);
}

int count() noexcept {
  int live = 0;
  for (const Slot& slot : slots) live += slot.state.load(std::memory_order_acquire) == kLive;
  return live;
}

}  // namespace nbody::temporaries
