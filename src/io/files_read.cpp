#include "io/files_read.h"

#include <map>
#include <mutex>
#include <utility>

namespace nbody {
namespace {

struct FilesRead {
  std::mutex use;
  std::map<std::pair<dev_t, ino_t>, std::filesystem::path> names;
};

FilesRead& filesRead() {
  static FilesRead files;
  return files;
}

}  // namespace

void noteFileRead(const struct stat& file, const std::filesystem::path& path) {
  if (!S_ISREG(file.st_mode)) return;
  FilesRead& files = filesRead();
  const std::lock_guard lock(files.use);
  files.names.try_emplace({file.st_dev, file.st_ino}, path);
}

void noteFileRead(const std::filesystem::path& path) {
  struct stat file;
  if (::stat(path.c_str(), &file) == 0) noteFileRead(file, path);
}

std::optional<std::filesystem::path> nameReadAs(const struct stat& file) {
  if (!S_ISREG(file.st_mode)) return std::nullopt;
  FilesRead& files = filesRead();
  const std::lock_guard lock(files.use);
  const auto found = files.names.find({file.st_dev, file.st_ino});
  if (found == files.names.end()) return std::nullopt;
  return found->second;
}

void forgetFilesRead() {
  FilesRead& files = filesRead();
  const std::lock_guard lock(files.use);
  files.names.clear();
}

}  // namespace nbody
