#include "io/files_read.h"

#include <map>
#include <mutex>
#include <utility>

namespace nbody {
namespace {

// A file read: the name it was read under, and when its inode last changed then (a new file that
// took its inode number since, or the file changed by another, is not the file read).
struct FileRead {
  std::filesystem::path name;
  timespec changed;
};

struct FilesRead {
  std::mutex use;
  std::map<std::pair<dev_t, ino_t>, FileRead> names;
};

bool sameTime(const timespec& a, const timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

FilesRead& filesRead() {
  static FilesRead files;
  return files;
}

}  // namespace

void noteFileRead(const struct stat& file, const std::filesystem::path& path) {
  if (!S_ISREG(file.st_mode)) return;
  FilesRead& files = filesRead();
  const std::lock_guard lock(files.use);
  files.names.insert_or_assign({file.st_dev, file.st_ino}, FileRead{path, file.st_ctim});
}

void noteFileRead(const std::filesystem::path& path) {
  struct stat file;
  if (::stat(path.c_str(), &file) == 0) noteFileRead(file, path);
}

// A file read and since removed may have left its inode to a new file: an entry holds only while
// the name it was read under still leads to it, unchanged.
std::optional<std::filesystem::path> nameReadAs(const struct stat& file) {
  if (!S_ISREG(file.st_mode)) return std::nullopt;
  FilesRead& files = filesRead();
  const std::lock_guard lock(files.use);
  const auto found = files.names.find({file.st_dev, file.st_ino});
  if (found == files.names.end()) return std::nullopt;
  struct stat named;
  if (::stat(found->second.name.c_str(), &named) != 0 || named.st_dev != file.st_dev ||
      named.st_ino != file.st_ino || !sameTime(named.st_ctim, found->second.changed) ||
      !sameTime(file.st_ctim, found->second.changed)) {
    files.names.erase(found);
    return std::nullopt;
  }
  return found->second.name;
}

void forgetFilesRead() {
  FilesRead& files = filesRead();
  const std::lock_guard lock(files.use);
  files.names.clear();
}

}  // namespace nbody
