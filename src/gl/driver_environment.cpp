#include "gl/driver_environment.h"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "util/printable_text.h"
#include "util/system_limits.h"

namespace nbody::gl {
namespace {

// What llvmpipe needs beyond what nbody holds when the context is made: its LLVM, a stack for each
// of its threads, its scenes (measured: short of about 230 MiB it crashed compiling a shader).
constexpr std::size_t kDriverAddressSpace = std::size_t(256) << 20;
// The room Mesa's shader cache needs at least: its index alone is 1.3 MiB, allocated on use.
constexpr double kShaderCacheRoom = 16.0 * (1 << 20);

// The threads a driver may start: llvmpipe one for each core (LP_NUM_THREADS where set) and two
// queues; GPU drivers fewer.
unsigned driverThreads() {
  const char* asked = std::getenv("LP_NUM_THREADS");
  const unsigned cores =
      asked && *asked ? unsigned(std::atoi(asked)) : std::thread::hardware_concurrency();
  return std::min(cores, 32u) + 2;
}

// Starts `count` threads that wait until all are started, then ends them: what the process
// limit and the address space allow now. Throws saying how many could be started.
void probeThreads(unsigned count) {
  std::mutex mutex;
  std::condition_variable released;
  bool release = false;
  std::vector<std::thread> threads;
  std::string failure;
  try {
    for (unsigned k = 0; k < count; ++k)
      threads.emplace_back([&] {
        std::unique_lock lock(mutex);
        released.wait(lock, [&] { return release; });
      });
  } catch (const std::system_error& e) {
    failure = errorText(e.code().value());
  }
  {
    const std::lock_guard lock(mutex);
    release = true;
  }
  released.notify_all();
  for (std::thread& thread : threads) thread.join();
  if (!failure.empty())
    throw std::runtime_error("the OpenGL driver could not start: it may need " +
                             std::to_string(count) + " threads, and only " +
                             std::to_string(threads.size()) + " could be started (" + failure +
                             ")");
}

void probeAddressSpace() {
  rlim_t limit = 0;
  if (!softLimit(RLIMIT_AS, &limit)) return;
  void* room = ::mmap(nullptr, kDriverAddressSpace, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (room != MAP_FAILED) {
    ::munmap(room, kDriverAddressSpace);
    return;
  }
  throw std::runtime_error(
      "the OpenGL driver could not start: " + limitText(RLIMIT_AS) + ", of which nbody uses " +
      bytesText(addressSpaceInUse()) + " already, and the driver needs about " +
      bytesText(double(kDriverAddressSpace)) + " more (short of it, it crashes)");
}

bool isSet(const char* name) {
  const char* value = std::getenv(name);
  if (!value) return false;
  const std::string text = value;
  return text == "1" || text == "true" || text == "yes";
}

// Where Mesa keeps its shader cache: MESA_SHADER_CACHE_DIR, XDG_CACHE_HOME or ~/.cache, then its
// own folder within.
std::filesystem::path mesaShaderCache() {
  for (const char* name : {"MESA_SHADER_CACHE_DIR", "MESA_GLSL_CACHE_DIR", "XDG_CACHE_HOME"})
    if (const char* base = std::getenv(name); base && *base)
      return std::filesystem::path(base) / "mesa_shader_cache";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home && *home ? home : "/") / ".cache" / "mesa_shader_cache";
}

// Why the cache's folder cannot take it (its nearest part that exists: the rest Mesa makes), or "".
std::string whyNoShaderCache(const std::filesystem::path& folder) {
  std::error_code error;
  std::filesystem::path existing = folder;
  while (!std::filesystem::exists(existing, error) && existing.has_relative_path())
    existing = existing.parent_path();
  if (!std::filesystem::is_directory(existing, error))
    return existing.string() + " is not a folder";
  struct statvfs space {};
  if (::access(existing.c_str(), W_OK | X_OK) != 0)
    return existing.string() + " cannot be written (" + errorText(errno) + ")";
  if (::statvfs(existing.c_str(), &space) != 0) return {};
  if (space.f_flag & ST_RDONLY) return existing.string() + " is on a read-only file system";
  const double free = double(space.f_bavail) * double(space.f_frsize);
  if (free < kShaderCacheRoom)
    return existing.string() + " is on a full file system (" + bytesText(free) + " free)";
  return {};
}

void checkShaderCache() {
  if (isSet("MESA_SHADER_CACHE_DISABLE") || isSet("MESA_GLSL_CACHE_DISABLE")) return;
  const std::string why = whyNoShaderCache(mesaShaderCache());
  if (why.empty()) return;
  ::setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
  ::setenv("MESA_GLSL_CACHE_DISABLE", "true", 1);
  std::fprintf(stderr, "nbody: note: OpenGL's shader cache is off: %s\n",
               withoutControlCharacters(why).c_str());
}

}  // namespace

void prepareDriverEnvironment() {
  probeAddressSpace();
  probeThreads(driverThreads());
  checkShaderCache();
}

}  // namespace nbody::gl
