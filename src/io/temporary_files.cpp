#include "io/temporary_files.h"

#include <array>
#include <atomic>
#include <climits>
#include <cstring>
#include <stdexcept>

#include <pthread.h>
#include <unistd.h>

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
  for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGVTALRM, SIGPROF,
                           SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGSYS, SIGABRT})
    sigaddset(&set, signal);
  return set;
}

}  // namespace

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
    return int(k);
  }
  throw std::runtime_error("more than " + std::to_string(kSlots) + " temporary files open at once");
}

void forget(int slot) {
  if (slot >= 0 && std::size_t(slot) < kSlots) slots[std::size_t(slot)].state.store(kFree, std::memory_order_release);
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
