#include "io/output_paths.h"

#include <system_error>

#include <sys/stat.h>

namespace nbody {

std::filesystem::path resolvedOutputPath(const std::filesystem::path& path) {
  std::error_code error;
  // Absolute first: weakly_canonical leaves a relative path none of whose parts exists relative.
  const std::filesystem::path absolute = std::filesystem::absolute(path, error);
  if (error) return path.lexically_normal();
  const std::filesystem::path resolved = std::filesystem::weakly_canonical(absolute, error);
  // A component that cannot be looked into (no permission, a loop of links): as written.
  return error ? absolute.lexically_normal() : resolved;
}

bool sameOutputFile(const std::filesystem::path& a, const std::filesystem::path& b) {
  if (a.empty() || b.empty()) return false;
  struct stat first, second;
  if (::stat(a.c_str(), &first) == 0 && ::stat(b.c_str(), &second) == 0)
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino &&
           !S_ISCHR(first.st_mode);
  const std::filesystem::path resolved = resolvedOutputPath(a);
  if (resolved != resolvedOutputPath(b)) return false;
  struct stat status;
  return ::stat(resolved.c_str(), &status) != 0 || !S_ISCHR(status.st_mode);
}

}  // namespace nbody
