#pragma once
// What the attacks of the fault-injection suite (tests/cpu/fault_injection_test.cpp, and its GL
// tier tests/gl/fault_injection_gl_test.cpp) expect of every failed or stopped run.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "io/image.h"
#include "io/png.h"
#include "support/cli_runner.h"

namespace nbody::test {

inline const std::string kSmallRun = "simulate --engine cpu --bodies 64 --steps 3 -q ";
inline const std::string kLoudRun =
    "simulate --engine cpu --bodies 64 --steps 3 ";  // with its progress lines

// The bytes of a 2 x 2 PNG, and the file.
inline std::string tinyPngBytes() {
  static const std::string bytes = [] {
    ScratchFolder scratch("tiny-png");
    writePng(Image(2, 2), scratch / "tiny.png");
    return readWholeFile(scratch / "tiny.png");
  }();
  return bytes;
}
inline void writeTinyPng(const std::filesystem::path& path) {
  std::ofstream(path, std::ios::binary) << tinyPngBytes();
}

// The names in the scratch folder, without what runNbody keeps of the output.
inline std::vector<std::string> namesIn(const ScratchFolder& scratch) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(scratch.path()))
    if (entry.path().filename() != "stdout.txt" && entry.path().filename() != "stderr.txt")
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The lines of `err` that nbody wrote itself ("nbody: ..."), not a library.
inline std::vector<std::string> linesFromNbody(const std::string& err) {
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < err.size();) {
    const std::size_t end = std::min(err.find('\n', at), err.size());
    if (err.compare(at, 7, "nbody: ") == 0) lines.push_back(err.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

// What every failed or stopped run must leave: no temporary file, and one line from nbody saying
// why, the last on stderr (progress lines may come before it).
inline void expectCleanFailure(const CommandResult& result, const ScratchFolder& scratch,
                               int exitCode, const std::string& expectedInMessage) {
  EXPECT_EQ(result.exitCode, exitCode) << result.err;
  const std::size_t lastLine =
      result.err.rfind('\n', result.err.size() >= 2 ? result.err.size() - 2 : 0);
  const std::string last = result.err.substr(lastLine == std::string::npos ? 0 : lastLine + 1);
  EXPECT_EQ(last.rfind("nbody: ", 0), 0u) << result.err;
  EXPECT_EQ(linesFromNbody(result.err).size(), 1u) << result.err;
  EXPECT_NE(last.find(expectedInMessage), std::string::npos) << result.err;
  EXPECT_EQ(temporaryFilesIn(scratch.path()), std::vector<std::string>{});
}

// A command line where {d} stands for the scratch folder, and what its one line must say.
struct AttackCase {
  std::string name, arguments, expectedInMessage;
};
inline void PrintTo(const AttackCase& attack, std::ostream* out) { *out << attack.arguments; }

inline std::string withFolder(std::string arguments, const ScratchFolder& scratch) {
  for (auto at = arguments.find("{d}"); at != std::string::npos; at = arguments.find("{d}"))
    arguments.replace(at, 3, scratch.path().string());
  return arguments;
}

// A usage error: exit 2, one line saying `expectedInMessage`, before any work (no file made).
inline void expectUsageErrorBeforeAnyWork(const AttackCase& attack, const ScratchFolder& scratch) {
  const auto before = namesIn(scratch);
  expectCleanFailure(runNbody(withFolder(attack.arguments, scratch), scratch), scratch, 2,
                     attack.expectedInMessage);
  EXPECT_EQ(namesIn(scratch), before);
}

// Whether this test program runs under AddressSanitizer, whose shadow memory fits under no
// address-space limit (the cases that set one are skipped there).
inline bool underAddressSanitizer() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#endif
#endif
  return false;
}

// The shell words that run nbody as the user nobody (the scratch folder opened to them), for what
// root is never refused; "skip" where the test does not run as root.
inline std::string asNobody(const ScratchFolder& scratch) {
  if (::geteuid() != 0) return "skip";
  ::chmod(scratch.path().c_str(), 0777);
  return "setpriv --reuid=65534 --regid=65534 --clear-groups ";
}

}  // namespace nbody::test
