#include "io/input_file.h"

#include <cerrno>
#include <cstring>
#include <new>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/files_read.h"
#include "io/stop_point.h"
#include "parallel/ranks.h"
#include "util/system_limits.h"

namespace nbody {
namespace {

std::string cannotRead(const std::filesystem::path& path, const std::string& reason) {
  return "cannot read " + path.string() + ": " + reason;
}

// The first folder on the way to `path` that cannot be searched, or nothing.
std::optional<std::filesystem::path> unsearchableFolder(const std::filesystem::path& path) {
  std::filesystem::path folder;
  for (const auto& part : path.parent_path()) {
    folder /= part;
    if (::faccessat(AT_FDCWD, folder.c_str(), X_OK, AT_EACCESS) != 0 && errno == EACCES)
      return folder;
  }
  return std::nullopt;
}

// What is there instead of a file or pipe.
std::string kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "it is a folder";
  if (S_ISSOCK(mode)) return "it is a socket, not a file or a pipe";
  return "it is a device, not a file or a pipe (a device such as /dev/zero may never end)";
}

// Room for the whole file, or why not.
void reserveFor(std::string& bytes, const std::filesystem::path& path, off_t size) {
  try {
    bytes.reserve(std::size_t(size));
  } catch (const std::bad_alloc&) {
    const std::string limits = limitsBehind(ENOMEM);
    throw std::runtime_error(cannotRead(path, "its " + bytesText(double(size)) +
                                                  " do not fit in the memory left" +
                                                  (limits.empty() ? "" : " (" + limits + ")")));
  }
}

constexpr std::size_t kBytesBetweenStopPoints = std::size_t(256) << 20;  // a fraction of a second

// Closes the descriptor however the read ends.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string whyUnreachable(const std::filesystem::path& path, int error) {
  struct stat status;
  if (error == ENXIO && ::stat(path.c_str(), &status) == 0)
    return kindOf(status.st_mode);  // a socket
  if (error == ELOOP) return "it is a loop of symbolic links (or a chain of more than 40)";
  if (error == EACCES)
    if (const auto folder = unsearchableFolder(path))
      return "the folder " + folder->string() + " on the way cannot be searched (" +
             errorText(EACCES) + ")";
  return errorText(error);
}

namespace {

// A file that is one of several (a part of a multi-file snapshot) is opened without blocking, so
// that a pipe there cannot hold nbody in open() for a writer that never comes, and then refused.
std::string readHere(const std::filesystem::path& path, InputKinds kinds) {
  const int blocking = kinds == InputKinds::filesOnly ? O_NONBLOCK : 0;
  const Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | blocking)};
  if (file.fd < 0) throw std::runtime_error(cannotRead(path, whyUnreachable(path, errno)));
  struct stat status;
  if (::fstat(file.fd, &status) != 0) throw std::runtime_error(cannotRead(path, errorText(errno)));
  if (kinds == InputKinds::filesOnly && S_ISFIFO(status.st_mode))
    throw std::runtime_error(
        cannotRead(path, "it is a pipe; a part of a snapshot of several files must be a file"));
  if (!S_ISREG(status.st_mode) && !S_ISFIFO(status.st_mode))
    throw std::runtime_error(cannotRead(path, kindOf(status.st_mode)));
  if (blocking != 0 && ::fcntl(file.fd, F_SETFL, 0) != 0)
    throw std::runtime_error(cannotRead(path, errorText(errno)));
  if (S_ISREG(status.st_mode) && kinds != InputKinds::editedInPlace) noteFileRead(status, path);
  std::string bytes;
  if (S_ISREG(status.st_mode)) reserveFor(bytes, path, status.st_size);
  char chunk[1 << 16];
  while (true) {
    const ssize_t count = ::read(file.fd, chunk, sizeof chunk);
    if (count > 0) {
      bytes.append(chunk, std::size_t(count));
      if (bytes.size() % kBytesBetweenStopPoints < std::size_t(count))
        stopPoint("while reading " + path.string());
    } else if (count == 0) {
      return bytes;
    } else if (errno != EINTR) {
      throw std::runtime_error(cannotRead(path, errorText(errno)));
    }
  }
}

// What rank 0 read, or why it could not: one byte that says which, then the bytes or the message.
std::vector<std::byte> leadersRead(const std::filesystem::path& path, InputKinds kinds) {
  std::string text;
  char outcome = 1;
  try {
    text = readHere(path, kinds);
  } catch (const std::runtime_error& e) {
    text = e.what();
    outcome = 0;
  }
  std::vector<std::byte> message(text.size() + 1);
  message[0] = std::byte(outcome);
  std::memcpy(message.data() + 1, text.data(), text.size());
  return message;
}

}  // namespace

std::string readInputFileHere(const std::filesystem::path& path, InputKinds kinds) {
  return readHere(path, kinds);
}

// Distributed, rank 0 alone reads (the other ranks' nodes may not even hold the file) and every
// rank gets its bytes, or its failure.
std::string readInputFile(const std::filesystem::path& path, InputKinds kinds) {
  const Ranks& ranks = nbody::ranks();
  if (!ranks.distributed()) return readHere(path, kinds);
  std::vector<std::byte> message;
  if (ranks.leader()) message = leadersRead(path, kinds);
  ranks.broadcast(message);
  std::string text(reinterpret_cast<const char*>(message.data()) + 1, message.size() - 1);
  if (message[0] == std::byte(0)) throw std::runtime_error(text);
  return text;
}

}  // namespace nbody
