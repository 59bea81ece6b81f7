#include "io/atomic_file.h"

#include <stdexcept>
#include <system_error>

#include <unistd.h>

namespace nbody {

namespace {

// A device or a pipe (-o /dev/null) must not be replaced by a renamed file, which is what would
// happen to /dev/null for root; it is written in place.
bool isSpecialFile(const std::filesystem::path& path) {
  const std::filesystem::file_status status = std::filesystem::status(path);
  return std::filesystem::exists(status) && !std::filesystem::is_regular_file(status) &&
         !std::filesystem::is_directory(status);
}

}  // namespace

AtomicOutputPath::AtomicOutputPath(std::filesystem::path target)
    : target_(std::move(target)),
      writesInPlace_(isSpecialFile(target_)),
      temporary_(writesInPlace_ ? target_.string()
                                : target_.string() + ".tmp-" + std::to_string(::getpid())) {
  if (std::filesystem::is_directory(target_))
    throw std::runtime_error("cannot write " + target_.string() + ": it is a directory");
}

AtomicOutputPath::~AtomicOutputPath() {
  if (committed_ || writesInPlace_) return;
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
}

void AtomicOutputPath::commit() {
  if (writesInPlace_) return;
  std::error_code error;
  std::filesystem::rename(temporary_, target_, error);
  if (error) throw std::runtime_error("cannot write " + target_.string() + ": " + error.message());
  committed_ = true;
}

AtomicFileWriter::AtomicFileWriter(std::filesystem::path target) : path_(std::move(target)) {
  stream_.open(path_.temporary(), std::ios::binary | std::ios::trunc);
  if (!stream_)
    throw std::runtime_error("cannot write " + path_.target().string() + ": " +
                             std::error_code(errno, std::generic_category()).message());
}

void AtomicFileWriter::commit() {
  stream_.flush();
  stream_.close();
  if (stream_.fail()) throw std::runtime_error("writing " + path_.target().string() + " failed");
  path_.commit();
}

}  // namespace nbody
