#pragma once
// The limits a user or a service manager sets on a process (ulimit: getrlimit), named in messages
// where a failure ran into one: "Too many open files" alone does not say that the limit is 5.

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <system_error>
#include <utility>

#include <sys/resource.h>
#include <unistd.h>

namespace nbody {

// A size in bytes as a person reads it: "512 KiB", "3.2 GiB".
inline std::string bytesText(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 5) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[48];
  std::snprintf(text, sizeof text, unit == 0 || bytes >= 100 ? "%.0f %s" : "%.1f %s", bytes,
                units[unit]);
  return text;
}

// Two sizes one sentence compares ("X, over the Y"): as bytesText says them, or in bytes where
// those would read alike ("128 MiB, over the 128 MiB").
inline std::pair<std::string, std::string> comparedBytes(double a, double b) {
  if (bytesText(a) != bytesText(b)) return {bytesText(a), bytesText(b)};
  char first[48], second[48];
  std::snprintf(first, sizeof first, "%.0f bytes", a);
  std::snprintf(second, sizeof second, "%.0f bytes", b);
  return {first, second};
}

// The soft limit on `resource`, or nothing where there is none.
inline bool softLimit(int resource, rlim_t* value) {
  struct rlimit limit {};
  if (::getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return false;
  *value = limit.rlim_cur;
  return true;
}

// "the open-file limit (ulimit -n) is 5", or "" where `resource` has no limit.
inline std::string limitText(int resource) {
  rlim_t value = 0;
  if (!softLimit(resource, &value)) return "";
  switch (resource) {
    case RLIMIT_NOFILE:
      return "the open-file limit (ulimit -n) is " + std::to_string(value);
    case RLIMIT_NPROC:
      return "the process limit (ulimit -u, threads included) is " + std::to_string(value);
    case RLIMIT_AS:
      return "the address-space limit (ulimit -v) is " + bytesText(double(value));
    case RLIMIT_DATA:
      return "the data limit (ulimit -d) is " + bytesText(double(value));
    case RLIMIT_STACK:
      return "the stack limit (ulimit -s) is " + bytesText(double(value));
    case RLIMIT_FSIZE:
      return "the file-size limit (ulimit -f) is " + bytesText(double(value));
    default:
      return "";
  }
}

// The address space the process holds now (what the address-space limit counts).
inline double addressSpaceInUse() {
  std::ifstream statm("/proc/self/statm");
  double pages = 0.0;
  statm >> pages;
  return pages * double(::sysconf(_SC_PAGESIZE));
}

// What the address-space limit (ulimit -v) leaves; infinity where none is set.
inline double addressSpaceLeft() {
  rlim_t limit = 0;
  if (!softLimit(RLIMIT_AS, &limit)) return std::numeric_limits<double>::infinity();
  const double left = double(limit) - addressSpaceInUse();
  return left > 0.0 ? left : 0.0;
}

// A process limit below this is named as a cause; systems set tens of thousands by default.
inline constexpr rlim_t kLowestProcessLimitNamed = 1024;

// The limits a failure with `error` (an errno) may have run into, joined: "" where none is set.
inline std::string limitsBehind(int error) {
  std::string found;
  const auto add = [&found](int resource) {
    const std::string text = limitText(resource);
    if (!text.empty()) found += (found.empty() ? "" : "; ") + text;
  };
  switch (error) {
    case EMFILE:
      add(RLIMIT_NOFILE);
      break;
    case EAGAIN:  // a thread: its count (where low: systems set tens of thousands), or its stack's
                  // memory
      if (rlim_t processes = 0;
          softLimit(RLIMIT_NPROC, &processes) && processes < kLowestProcessLimitNamed)
        add(RLIMIT_NPROC);
      add(RLIMIT_AS);
      break;
    case ENOMEM:
      add(RLIMIT_AS);
      add(RLIMIT_DATA);
      break;
    case EFBIG:
      add(RLIMIT_FSIZE);
      break;
    default:
      break;
  }
  return found;
}

// For a failure inside a library whose cause it does not tell (a driver that could not start, a
// framebuffer it could not make, an encoder that could not open its threads): the limits set on
// memory and processes, each of which may be it, as " (the address-space limit (ulimit -v) is
// 500 MiB, which may be too low)"; "" where none is set.
inline std::string limitsThatMayBeBehind() {
  std::string found;
  for (const int resource : {RLIMIT_AS, RLIMIT_DATA, RLIMIT_NPROC}) {
    rlim_t value = 0;
    if (resource == RLIMIT_NPROC &&
        (!softLimit(resource, &value) || value >= kLowestProcessLimitNamed))
      continue;
    const std::string text = limitText(resource);
    if (!text.empty()) found += (found.empty() ? "" : "; ") + text;
  }
  return found.empty() ? ""
                       : " (" + found +
                             (found.find(';') == std::string::npos ? ", which may be too low)"
                                                                   : ": one may be too low)");
}

// strerror's text for `error`, with the limit behind it where one is set:
// "Too many open files: the open-file limit (ulimit -n) is 5".
inline std::string errorText(int error) {
  const std::string limits = limitsBehind(error);
  return std::generic_category().message(error) + (limits.empty() ? "" : ": " + limits);
}

}  // namespace nbody
