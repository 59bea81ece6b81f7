#pragma once
// Whether two outputs of one run (or an output and an input) are the same file, however they were
// named: `out.csv`, `./x/../out.csv`, `link-to-here/out.csv`, a hard link and the absolute path
// are one file, and so are /dev/stdout, /dev/fd/1, /proc/self/fd/1 and the file or pipe standard
// output goes to. Writing both would mix them up (or one rename would drop the other), so a run
// refuses them before any work.

#include <filesystem>

namespace nbody {

// The absolute path with `.`, `..` and every symbolic link resolved as far as the path exists
// (the rest lexically normalised).
std::filesystem::path resolvedOutputPath(const std::filesystem::path& path);

// True when `a` and `b` lead to the same file: where both exist, the same file on the same device
// (whatever the names: the one way to see two names of one pipe), else the same resolved path.
// Character devices (a terminal, /dev/null) are never "the same output": what is written there is
// shown or dropped, not kept.
bool sameOutputFile(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace nbody
