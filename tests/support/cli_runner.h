#pragma once
// Runs the nbody executable as a user would and captures what it printed.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>

namespace nbody::test {

struct CommandResult {
  int exitCode = -1;
  std::string out, err;
};

inline std::string readWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A fresh folder under the system's temporary folder, removed when the object goes.
class ScratchFolder {
 public:
  explicit ScratchFolder(const std::string& name)
      : path_(std::filesystem::temp_directory_path() / ("nbody-test-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchFolder() { std::filesystem::remove_all(path_); }
  std::filesystem::path operator/(const std::string& file) const { return path_ / file; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// `environment`: VAR=VALUE assignments put before the command.
inline CommandResult runNbody(const std::string& arguments, const ScratchFolder& scratch,
                              const std::string& environment = "") {
  const auto out = scratch / "stdout.txt", err = scratch / "stderr.txt";
  const std::string command = environment + " " + std::string(NBODY_EXECUTABLE) + " " + arguments +
                              " >" + out.string() + " 2>" + err.string();
  const int status = std::system(command.c_str());
  CommandResult result;
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = readWholeFile(out);
  result.err = readWholeFile(err);
  return result;
}

inline std::size_t lineCount(const std::string& text) {
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  return lines + (!text.empty() && text.back() != '\n');
}

}  // namespace nbody::test
