#pragma once
// Runs the nbody executable as a user would and captures what it printed.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <chrono>
#include <csignal>
#include <functional>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace nbody::test {

struct CommandResult {
  int exitCode = -1;
  int signal = 0;  // the signal that ended it (RunningNbody only: a shell reports it as 128 + n)
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
      : path_(std::filesystem::temp_directory_path() /
              ("nbody-test-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchFolder() { std::filesystem::remove_all(path_); }
  std::filesystem::path operator/(const std::string& file) const { return path_ / file; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// `program` with `arguments`, what it prints captured; `environment`: VAR=VALUE assignments (or a
// launcher) put before the command.
inline CommandResult runProgram(const std::string& program, const std::string& arguments,
                                const ScratchFolder& scratch, const std::string& environment = "") {
  const auto out = scratch / "stdout.txt", err = scratch / "stderr.txt";
  const std::string command =
      environment + " " + program + " " + arguments + " >" + out.string() + " 2>" + err.string();
  const int status = std::system(command.c_str());
  CommandResult result;
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = readWholeFile(out);
  result.err = readWholeFile(err);
  return result;
}

inline CommandResult runNbody(const std::string& arguments, const ScratchFolder& scratch,
                              const std::string& environment = "") {
  return runProgram(NBODY_EXECUTABLE, arguments, scratch, environment);
}

// nbody run through the shell with `redirections` (e.g. "2>&-") instead of capturing what it
// prints: its exit code.
inline int runNbodyRedirected(const std::string& arguments, const std::string& redirections) {
  const std::string command = std::string(NBODY_EXECUTABLE) + " " + arguments + " " + redirections;
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The redirections that close standard streams: input, output, error, and all three.
inline const std::vector<std::string>& closingRedirections() {
  static const std::vector<std::string> closings{"<&-", ">&-", "2>&-", "<&- >&- 2>&-"};
  return closings;
}

// Runs `arguments` (where {out} stands for an output path) with streams open and with each closing
// redirection, and returns the first case whose output differs in bytes from the open run's (""
// when none does): nbody's own text must never end up in its outputs.
inline std::string closedStreamsThatChangeTheOutput(const std::string& arguments,
                                                    const std::string& extension,
                                                    const ScratchFolder& scratch) {
  const auto withPath = [&](const std::filesystem::path& path) {
    std::string words = arguments;
    for (auto at = words.find("{out}"); at != std::string::npos; at = words.find("{out}"))
      words.replace(at, 5, path.string());
    return words;
  };
  const auto open = scratch / ("open" + extension);
  const auto result =
      runNbodyRedirected(withPath(open), ">" + (scratch / "stdout.txt").string() + " 2>" +
                                             (scratch / "stderr.txt").string());
  if (result != 0 || !std::filesystem::exists(open)) return "the run with open streams failed";
  for (const std::string& closing : closingRedirections()) {
    const auto closed = scratch / ("closed" + extension);
    const int exitCode = runNbodyRedirected(withPath(closed), closing);
    if (exitCode != 0) return closing + ": exit " + std::to_string(exitCode);
    if (readWholeFile(closed) != readWholeFile(open)) return closing + ": the output differs";
    std::filesystem::remove(closed);
  }
  return "";
}

// nbody started without a shell, so that a signal sent to `pid()` reaches it; stdout and stderr go
// to files in the scratch folder (stdout to `standardOutput` where one is given: a pipe). Every
// signal has its default action in it and none is blocked, whatever the test's own process
// inherited (a background job ignores SIGINT and SIGQUIT).
class RunningNbody {
 public:
  RunningNbody(const std::vector<std::string>& arguments, const ScratchFolder& scratch,
               int standardOutput = -1)
      : RunningNbody(withNbody(arguments), scratch, standardOutput, 0) {}
  // Any program (`words[0]`, a path) with its arguments, e.g. a launcher that starts nbody.
  static RunningNbody program(const std::vector<std::string>& words, const ScratchFolder& scratch) {
    return RunningNbody(words, scratch, -1, 0);
  }

 private:
  static std::vector<std::string> withNbody(const std::vector<std::string>& arguments) {
    std::vector<std::string> words{NBODY_EXECUTABLE};
    words.insert(words.end(), arguments.begin(), arguments.end());
    return words;
  }
  RunningNbody(std::vector<std::string> words, const ScratchFolder& scratch, int standardOutput,
               int)
      : out_(scratch / "stdout.txt"), err_(scratch / "stderr.txt") {
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (standardOutput >= 0)
      posix_spawn_file_actions_adddup2(&actions, standardOutput, STDOUT_FILENO);
    else
      posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_.c_str(),
                                       O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    if (posix_spawn(&pid_, argv[0], &actions, &attributes, argv.data(), environ) != 0) pid_ = -1;
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
  }

 public:
  ~RunningNbody() {
    if (pid_ > 0 && !done_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  RunningNbody(const RunningNbody&) = delete;
  RunningNbody& operator=(const RunningNbody&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int number) const { ::kill(pid_, number); }

  // Waits up to `seconds` for it to end: its exit code (-1 when a signal ended it, `signal` then
  // says which) and output. One that does not end in time is killed and reported as exit code -2.
  CommandResult wait(double seconds = 120) {
    CommandResult result;
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        status = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    done_ = true;
    result.exitCode = status == -1 ? -2 : WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.signal = status != -1 && WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    result.out = readWholeFile(out_);
    result.err = readWholeFile(err_);
    return result;
  }

 private:
  std::filesystem::path out_, err_;
  pid_t pid_ = -1;
  bool done_ = false;
};

// nbody with its standard output into a pipe whose reader went away before it started: every
// write there fails with EPIPE (`nbody ... | head -c 10`, without the race of head's exit).
inline CommandResult runNbodyIntoAClosedPipe(const std::vector<std::string>& arguments,
                                             const ScratchFolder& scratch) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) return {};
  ::close(ends[0]);
  RunningNbody run(arguments, scratch, ends[1]);
  ::close(ends[1]);
  return run.wait();
}

// Waits up to `seconds` for `condition`; whether it came true.
inline bool waitUntil(const std::function<bool()>& condition, double seconds = 60) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// The names in `folder` that look like temporary files, nbody's (.nbody-tmp-) or the old ones
// (.tmp-).
inline std::vector<std::string> temporaryFilesIn(const std::filesystem::path& folder) {
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".nbody-tmp-") != std::string::npos || name.find(".tmp-") != std::string::npos)
      found.push_back(name);
  }
  return found;
}

inline std::size_t lineCount(const std::string& text) {
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  return lines + (!text.empty() && text.back() != '\n');
}

}  // namespace nbody::test
