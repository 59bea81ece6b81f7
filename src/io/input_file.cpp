#include "io/input_file.h"

#include <cerrno>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

}  // namespace

std::string readInputFile(const std::filesystem::path& path) {
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

}  // namespace nbody
