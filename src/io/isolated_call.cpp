#include "io/isolated_call.h"

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/stop_point.h"

namespace nbody {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || \
    __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

constexpr char kAnswered = 'A', kRefused = 'R', kOutOfMemory = 'M';

void writeAll(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t count = ::write(fd, bytes.data() + sent, bytes.size() - sent);
    if (count > 0)
      sent += std::size_t(count);
    else if (count < 0 && errno != EINTR)
      return;
  }
}

[[noreturn]] void runChild(const std::function<std::string()>& work, int fd,
                           std::size_t memoryLimitBytes, pid_t parent) {
  // Ends with the parent, whatever ends it (a second stop signal, a kill): never left blocked on
  // its own. The parent may have ended before this took effect.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(1);
  if (!kSanitized) {
    const rlimit limit{memoryLimitBytes, memoryLimitBytes};
    ::setrlimit(RLIMIT_AS, &limit);
  }
  // The outcome's mark, then what the work answered (sent as it is: a copy would double it).
  std::string mark(1, kAnswered), answer;
  try {
    answer = work();
  } catch (const std::bad_alloc&) {
    mark[0] = kOutOfMemory;
  } catch (const std::exception& e) {
    mark[0] = kRefused, answer = e.what();
  } catch (...) {
    mark[0] = kRefused, answer = "an unknown error";
  }
  // The mark and the answer's length (8 bytes, this machine's order) ahead of it: the parent then
  // holds it in one allocation of its size.
  const std::uint64_t length = answer.size();
  mark.append(reinterpret_cast<const char*>(&length), sizeof length);
  writeAll(fd, mark);
  writeAll(fd, answer);
  ::_exit(0);  // no destructors, atexit handlers or stdio flushes of the parent's state
}

// Up to `count` bytes from `fd` into `to`, fewer where it ends first; a stop asked for meanwhile
// ends the wait, setting `stoppedBy`.
std::size_t readInto(int fd, char* to, std::size_t count, int& stoppedBy) {
  std::size_t got = 0;
  while (got < count) {
    if ((stoppedBy = stopAskedFor()) != 0) return got;
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, 100) <= 0) continue;  // nothing yet, or a signal (EINTR): look again
    const ssize_t read = ::read(fd, to + got, count - got);
    if (read > 0)
      got += std::size_t(read);
    else if (read == 0 || errno != EINTR)
      return got;
  }
  return got;
}

// What the child sent: its mark and, where it sent all it said it would (at most `most` bytes),
// its answer. A mark of 0: none, or a length past `most`.
struct ChildAnswer {
  char mark = 0;
  std::string body;
  bool whole = false;
};
ChildAnswer readAnswer(int fd, std::size_t most, int& stoppedBy) {
  ChildAnswer answer;
  char head[1 + sizeof(std::uint64_t)];
  if (readInto(fd, head, sizeof head, stoppedBy) != sizeof head) return answer;
  std::uint64_t length = 0;
  std::memcpy(&length, head + 1, sizeof length);
  if (length > most) return answer;
  answer.mark = head[0];
  // Room reserved at once (address space, not memory), filled as the bytes come: a length the
  // child only claims costs nothing.
  answer.body.reserve(std::size_t(length));
  constexpr std::size_t kStep = std::size_t(64) << 20;
  while (answer.body.size() < length) {
    const std::size_t had = answer.body.size(),
                      more = std::min<std::size_t>(kStep, std::size_t(length) - had);
    answer.body.resize(had + more);
    if (readInto(fd, answer.body.data() + had, more, stoppedBy) != more) return answer;
  }
  answer.whole = true;
  return answer;
}

int waitFor(pid_t child) {
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitpid");
  return status;
}

// readAnswer, and the child ended where it sent no whole answer, so that no wait for it can last
// (a crash's signal stays its status where it died). Where the answer does not fit in memory, or
// the read fails otherwise, the child is ended and reaped first; the former in one line.
ChildAnswer answerOf(pid_t child, int fd, std::size_t most, int& stoppedBy,
                     const std::string& source) {
  const auto endChild = [&] {
    ::kill(child, SIGKILL);
    ::close(fd);
    waitFor(child);
  };
  try {
    ChildAnswer answer = readAnswer(fd, most, stoppedBy);
    if (!answer.whole) ::kill(child, SIGKILL);
    return answer;
  } catch (const std::bad_alloc&) {
    endChild();
    throw std::runtime_error(source + ": the reader process's answer does not fit in memory");
  } catch (...) {
    endChild();
    throw;
  }
}

}  // namespace

std::string callIsolated(const std::function<std::string()>& work, const std::string& source,
                         const std::string& library, std::size_t memoryLimitBytes) {
  int pipe[2];
  if (::pipe2(pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("cannot read " + source +
                             ": no pipe to a reader process: " + std::strerror(errno));
  ::fcntl(pipe[0], F_SETPIPE_SZ, 1 << 20);  // fewer, larger reads where the system allows it
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    const int error = errno;
    ::close(pipe[0]);
    ::close(pipe[1]);
    throw std::runtime_error("cannot read " + source +
                             ": no reader process: " + std::strerror(error));
  }
  if (child == 0) {
    ::close(pipe[0]);
    runChild(work, pipe[1], memoryLimitBytes, parent);
  }
  ::close(pipe[1]);
  int stoppedBy = 0;
  ChildAnswer answer = answerOf(child, pipe[0], memoryLimitBytes, stoppedBy, source);
  ::close(pipe[0]);
  if (stoppedBy != 0) {
    ::kill(child, SIGKILL);
    waitFor(child);
    stopPoint("while " + library + " read " + source);
  }
  const int status = waitFor(child);
  if (WIFSIGNALED(status))
    throw std::runtime_error(source + ": " + library + " crashed reading it (signal " +
                             std::to_string(WTERMSIG(status)) + ", " +
                             ::strsignal(WTERMSIG(status)) +
                             "): the file is damaged, or needs more than " +
                             std::to_string(memoryLimitBytes >> 20) + " MiB");
  const std::string memory = std::to_string(memoryLimitBytes >> 20) + " MiB";
  if (answer.mark == kOutOfMemory)
    throw std::runtime_error(source + ": reading it takes more than " + memory +
                             " (damaged, or far larger than its size)");
  if (!answer.whole || (answer.mark != kAnswered && answer.mark != kRefused))
    throw std::runtime_error(source + ": " + library +
                             " ended without an answer reading it (the file is damaged, or "
                             "needs more than " +
                             memory + ")");
  // A refusal is one line; a child the file took over could send any length.
  if (answer.mark == kRefused) throw std::runtime_error(answer.body.substr(0, 4096));
  return std::move(answer.body);
}

}  // namespace nbody
