#include "io/input_file.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parallel/ranks.h"

namespace nbody {
namespace {

std::string cannotRead(const std::filesystem::path& path, const std::string& reason) {
  return "cannot read " + path.string() + ": " + reason;
}

// Closes the descriptor however the read ends.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

std::string readHere(const std::filesystem::path& path) {
  const Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY)};
  if (file.fd < 0) throw std::runtime_error(cannotRead(path, std::generic_category().message(errno)));
  struct stat status;
  if (::fstat(file.fd, &status) != 0) throw std::runtime_error(cannotRead(path, std::generic_category().message(errno)));
  if (S_ISDIR(status.st_mode)) throw std::runtime_error(cannotRead(path, "it is a folder"));
  if (!S_ISREG(status.st_mode) && !S_ISFIFO(status.st_mode))
    throw std::runtime_error(cannotRead(path, "it is a device, not a file or a pipe (a device such as /dev/zero may never end)"));
  std::string bytes;
  if (S_ISREG(status.st_mode)) bytes.reserve(std::size_t(status.st_size));
  char chunk[1 << 16];
  while (true) {
    const ssize_t count = ::read(file.fd, chunk, sizeof chunk);
    if (count > 0) {
      bytes.append(chunk, std::size_t(count));
    } else if (count == 0) {
      return bytes;
    } else if (errno != EINTR) {
      throw std::runtime_error(cannotRead(path, std::generic_category().message(errno)));
    }
  }
}

// What rank 0 read, or why it could not: one byte that says which, then the bytes or the message.
std::vector<std::byte> leadersRead(const std::filesystem::path& path) {
  std::string text;
  char outcome = 1;
  try {
    text = readHere(path);
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

// Distributed, rank 0 alone reads (the other ranks' nodes may not even hold the file) and every
// rank gets its bytes, or its failure.
std::string readInputFile(const std::filesystem::path& path) {
  const Ranks& ranks = nbody::ranks();
  if (!ranks.distributed()) return readHere(path);
  std::vector<std::byte> message;
  if (ranks.leader()) message = leadersRead(path);
  ranks.broadcast(message);
  std::string text(reinterpret_cast<const char*>(message.data()) + 1, message.size() - 1);
  if (message[0] == std::byte(0)) throw std::runtime_error(text);
  return text;
}

}  // namespace nbody
