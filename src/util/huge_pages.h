#pragma once
// Transparent huge pages for the host's large arrays. Linux gives a process 2 MiB pages only where
// it asks (transparent_hugepage "madvise", Debian's default), and glibc's malloc asks only where
// GLIBC_TUNABLES holds glibc.malloc.hugetlb=1 (glibc 2.35 on, read once as the program starts).
// Without them every 4 KiB of a new array is a page fault: reading a part snapshot of 2M bodies
// spent most of its time faulting (docs/performance-history.md, round 60: the same read 2.6x
// faster with them). So main executes nbody again with the tunable where it is not set, the same
// arguments and process; GLIBC_TUNABLES=glibc.malloc.hugetlb=0 keeps glibc's default.

#include <fstream>
#include <optional>
#include <string>
#include <string_view>

namespace nbody {

// The variable that marks a process executed again for huge pages (no second time, whatever glibc
// made of GLIBC_TUNABLES).
inline constexpr const char* kHugePagesAsked = "NBODY_HUGE_PAGES_ASKED";

// GLIBC_TUNABLES asking glibc's malloc for transparent huge pages, from `current` (its value, or
// null where unset): nothing where it says already, either way.
inline std::optional<std::string> tunablesWithHugePages(const char* current) {
  constexpr std::string_view kTunable = "glibc.malloc.hugetlb=";
  const std::string_view now = current ? current : "";
  if (now.find(kTunable) != std::string_view::npos) return std::nullopt;
  return (now.empty() ? "" : std::string(now) + ":") + std::string(kTunable) + "1";
}

// The kernel's transparent huge page mode ("always", "madvise" or "never"), where it says.
inline std::optional<std::string> transparentHugePageMode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  const std::size_t open = line.find('['), close = line.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return std::nullopt;
  return line.substr(open + 1, close - open - 1);
}

}  // namespace nbody
