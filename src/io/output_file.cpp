#include "io/output_file.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <streambuf>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>  // renameat2
#include <sys/stat.h>
#include <unistd.h>

#include "io/files_read.h"
#include "io/input_file.h"
#include "io/temporary_files.h"
#include "parallel/ranks.h"
#include "util/system_limits.h"

namespace nbody {
namespace {

constexpr std::size_t kBufferBytes = std::size_t(1) << 16;
// The target's name is kept in the temporary's up to this length, so that the temporary's name
// stays within NAME_MAX (255) bytes.
constexpr std::size_t kLongestKeptName = 200;
constexpr const char* kTemporaryMark = ".nbody-tmp-";

std::string why(int error) { return errorText(error); }  // with the limit behind it (ulimit -n, -f)

std::string cannotWrite(const std::filesystem::path& target, const std::string& reason) {
  return "cannot write " + target.string() + ": " + reason;
}

// write() until every byte is out, through interruptions and full non-blocking pipes: 0 or errno.
int writeAll(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written >= 0) {
      data += written;
      size -= std::size_t(written);
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      pollfd ready{fd, POLLOUT, 0};
      ::poll(&ready, 1, -1);
    } else if (errno != EINTR) {
      return errno;
    }
  }
  return 0;
}

bool sameFile(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}
bool isStream(mode_t mode) { return S_ISCHR(mode) || S_ISFIFO(mode); }

// The standard stream (1 or 2) that `opened` is the file of, or -1.
int standardStreamOf(const struct stat& opened) {
  for (const int stream : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat status;
    if (::fstat(stream, &status) == 0 && sameFile(status, opened)) return stream;
  }
  return -1;
}

unsigned permissionsForNewFiles() {
  static const unsigned permissions = [] {
    const mode_t mask = ::umask(0);  // the only way to read it; put back at once
    ::umask(mask);
    return 0666u & ~unsigned(mask);
  }();
  return permissions;
}

std::filesystem::path folderOf(const std::filesystem::path& target) {
  const std::filesystem::path parent = target.parent_path();
  return parent.empty() ? "." : parent;
}

std::string kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "it is a folder";
  const std::string kind = S_ISBLK(mode)    ? "a block device"
                           : S_ISSOCK(mode) ? "a socket"
                                            : "no kind of file nbody writes";
  return "it is " + kind + " (nbody writes regular files, terminals, pipes and character devices)";
}

// Why an existing regular file cannot be replaced, or nothing. Found now rather than when the run
// is over and the rename fails.
std::string whyNotReplaceable(const std::filesystem::path& target, const struct stat& file) {
  if (::faccessat(AT_FDCWD, target.c_str(), W_OK, AT_EACCESS) != 0)
    return "it is not writable (" + why(errno) +
           "), and nbody does not replace files it may not write";
  struct stat folder;
  const bool othersFile = ::geteuid() != 0 && file.st_uid != ::geteuid();
  if (othersFile && ::stat(folderOf(target).c_str(), &folder) == 0 && (folder.st_mode & S_ISVTX) &&
      folder.st_uid != ::geteuid())
    return "it belongs to another user in a folder where only a file's owner may replace it (the "
           "sticky bit, as in /tmp)";
  return {};
}

std::string linkText(const std::filesystem::path& target) {
  std::error_code error;
  const std::filesystem::path to = std::filesystem::read_symlink(target, error);
  return "it is a symbolic link" + (error ? std::string() : " (to " + to.string() + ")");
}

// Why no file can be made in `folder`, from the errno of making one: the folder named as the cause.
std::string whyNoFileIn(const std::filesystem::path& folder, int error) {
  const std::string unreachable =
      whyUnreachable(folder / "x", error);  // a folder on the way, a limit
  if (unreachable != why(error) || (error != EACCES && error != EPERM && error != EROFS))
    return unreachable;
  if (error == EROFS) return "its folder " + folder.string() + " is on a read-only file system";
  return "its folder " + folder.string() + " cannot be written (" + why(error) + ")";
}

struct NewNames {
  std::mutex use;
  std::map<std::filesystem::path,
           std::function<std::filesystem::path(const std::filesystem::path&)>>
      next;
  std::map<std::filesystem::path, std::filesystem::path> taken;
};

NewNames& newNames() {
  static NewNames names;
  return names;
}

constexpr int kMostNewNamesTried = 1000;

// rename() where no file has the name `to` (else false, errno EEXIST). File systems that take no
// rename flags (NFS, some FUSE ones: EINVAL) get a hard link, which fails the same way where the
// name is taken, and the temporary name removed; so do systems without renameat2 (the web's).
bool renameIfFree(const std::filesystem::path& from, const std::filesystem::path& to) {
#if defined(RENAME_NOREPLACE)
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return true;
  if (errno != EINVAL && errno != ENOSYS) return false;
#endif
  if (::link(from.c_str(), to.c_str()) != 0) return false;
  ::unlink(from.c_str());
  return true;
}

// Renames `from` to `to`, or where `to` must be a new name, to the first of its names that is free
// at that moment; the name taken. errno set where it fails.
std::optional<std::filesystem::path> renameInto(const std::filesystem::path& from,
                                                const std::filesystem::path& to) {
  NewNames& names = newNames();
  const std::lock_guard lock(names.use);
  const auto next = names.next.find(to);
  if (next == names.next.end())
    return ::rename(from.c_str(), to.c_str()) == 0 ? std::optional(to) : std::nullopt;
  std::filesystem::path name = to;
  for (int tried = 0; tried < kMostNewNamesTried; ++tried, name = next->second(name)) {
    if (renameIfFree(from, name)) {
      names.taken[to] = name;
      return name;
    }
    if (errno != EEXIST) return std::nullopt;
  }
  return std::nullopt;
}

// No output replaces a file the run has read (io/files_read.h), however the two are named.
void refuseWhatIsRead(const std::filesystem::path& target, const struct stat& file) {
  const auto read = nameReadAs(file);
  if (!read) return;
  const std::string as = *read == target ? "" : " (read as " + read->string() + ")";
  throw OutputError(cannotWrite(target, "it is a file this run reads" + as +
                                            ", and writing it would replace what is being read"));
}

void syncFolder(const std::filesystem::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  // The rename is done and cannot be undone; a failed sync of the folder matters only if the
  // machine crashes now, so it does not fail the run.
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

// The ostream's buffer: bytes go to the file when it is full, on flush, and before direct writes.
class OutputFile::Buffer : public std::streambuf {
 public:
  explicit Buffer(OutputFile& file) : file_(file), bytes_(kBufferBytes) { reset(); }

  // Hands the buffered bytes to the file; false when that failed (the file keeps why).
  bool drain() {
    const std::size_t pending = std::size_t(pptr() - pbase());
    reset();
    return pending == 0 ? file_.error_.empty() : file_.send(bytes_.data(), pending);
  }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  void reset() { setp(bytes_.data(), bytes_.data() + bytes_.size()); }

  OutputFile& file_;
  std::vector<char> bytes_;
};

OutputFile::OutputFile(std::filesystem::path target, OutputWriter writer)
    : target_(std::move(target)), buffer_(std::make_unique<Buffer>(*this)), stream_(buffer_.get()) {
  if (target_.empty()) throw OutputError("an output path is empty: name a file");
  if (!target_.has_filename())
    throw OutputError(cannotWrite(target_, "the path ends in /, so it names a folder"));
  struct stat link;
  if (writer == OutputWriter::leader && !ranks().leader()) {
    openNowhere();
  } else if (::lstat(target_.c_str(), &link) != 0) {
    if (errno != ENOENT) throw OutputError(cannotWrite(target_, whyUnreachable(target_, errno)));
    openTemporary(permissionsForNewFiles());
  } else if (S_ISREG(link.st_mode)) {
    refuseWhatIsRead(target_, link);
    if (const std::string refusal = whyNotReplaceable(target_, link); !refusal.empty())
      throw OutputError(cannotWrite(target_, refusal));
    openTemporary(link.st_mode & 0777);
    keepOwnerOf(link);
  } else if (S_ISLNK(link.st_mode)) {
    openThroughLink();
  } else if (isStream(link.st_mode)) {
    openInPlace();
  } else {
    throw OutputError(cannotWrite(target_, kindOf(link.st_mode)));
  }
}

OutputFile::~OutputFile() {
  if (!committed_ && !temporary_.empty()) {
    temporaries::StopSignalsBlocked blocked;
    ::unlink(temporary_.c_str());
    temporaries::forget(slot_);
  }
  if (fd_ >= 0) ::close(fd_);
}

// A new file beside the target, with a name no one can guess, that did not exist before.
void OutputFile::openTemporary(unsigned permissions) {
  const std::string name = target_.filename().string().substr(0, kLongestKeptName);
  // Absolute, for the list a signal handler reads. A working folder that has no absolute name
  // system calls take (longer than PATH_MAX) or none at all (removed): relative, which leads to the
  // same place as long as the working folder stays, and nbody never changes it.
  std::error_code error;
  std::filesystem::path folder = std::filesystem::absolute(folderOf(target_), error);
  if (error || folder.native().size() + name.size() + 32 >= PATH_MAX) folder = folderOf(target_);
  std::string pattern = (folder / (name + kTemporaryMark + "XXXXXX")).string();
  {
    temporaries::StopSignalsBlocked blocked;
    fd_ = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (fd_ < 0) throw OutputError(cannotWrite(target_, whyNoFileIn(folderOf(target_), errno)));
    try {
      slot_ = temporaries::remember(pattern);
    } catch (const std::exception& e) {
      ::unlink(pattern.c_str());
      ::close(fd_);
      fd_ = -1;
      throw OutputError(cannotWrite(target_, e.what()));
    }
  }
  temporary_ = pattern;
  // mkostemp makes the file 0600; the output gets the permissions it would have had otherwise.
  (void)::fchmod(fd_, permissions);
}

// A file replaced keeps its owner and group, as editors and install do: root replacing another
// user's file (in any folder, sticky or not) leaves it theirs. Others may only give the new file a
// group they belong to; where that fails it is theirs, as any file they make. Then the mode again,
// which a change of owner may have cut.
void OutputFile::keepOwnerOf(const struct stat& replaced) {
  if (replaced.st_uid == ::geteuid() && replaced.st_gid == ::getegid()) return;
  if (::fchown(fd_, replaced.st_uid, replaced.st_gid) != 0)
    (void)::fchown(fd_, uid_t(-1), replaced.st_gid);
  (void)::fchmod(fd_, replaced.st_mode & 0777);
}

// A link is followed only to what is written in place: a terminal, pipe or device, or the file a
// standard stream is redirected to (/dev/stdout). Decided from what was opened.
void OutputFile::openThroughLink() {
  const std::string link = linkText(target_);
  const int fd = ::open(target_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    throw OutputError(cannotWrite(target_, link + ", and opening what it leads to failed: " +
                                               whyUnreachable(target_, errno)));
  struct stat opened;
  const bool known = ::fstat(fd, &opened) == 0;
  if (known && isStream(opened.st_mode)) {
    fd_ = fd;
    return;
  }
  const int standard = known && S_ISREG(opened.st_mode) ? standardStreamOf(opened) : -1;
  ::close(fd);
  if (standard < 0)
    throw OutputError(cannotWrite(
        target_,
        link + " that leads to a regular file; nbody replaces a regular file only under its own "
               "name, so that a planted link cannot send its output elsewhere: name "
               "the file itself"));
  // Where the shell's redirection put it: the same open file, so >> appends and > is not truncated
  // again.
  fd_ = ::fcntl(standard, F_DUPFD_CLOEXEC, 3);
  if (fd_ < 0) throw OutputError(cannotWrite(target_, why(errno)));
}

// A distributed run's outputs are rank 0's: the other ranks write theirs into /dev/null.
void OutputFile::openNowhere() {
  fd_ = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (fd_ < 0) throw OutputError(cannotWrite(target_, "/dev/null: " + why(errno)));
}

void OutputFile::openInPlace() {
  fd_ = ::open(target_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
  if (fd_ < 0) throw OutputError(cannotWrite(target_, why(errno)));
  struct stat opened;
  if (::fstat(fd_, &opened) != 0 || !isStream(opened.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw OutputError(cannotWrite(
        target_, "it changed from a device or pipe into something else while being opened"));
  }
}

bool OutputFile::send(const char* data, std::size_t size) noexcept {
  if (!error_.empty()) return false;
  if (inPlace())
    std::fflush(stdout);  // what nbody printed comes first on a shared terminal or pipe
  if (const int error = writeAll(fd_, data, size)) fail(error);
  return error_.empty();
}

void OutputFile::fail(int error, const std::string& doing) noexcept {
  if (!error_.empty()) return;
  failedWith_ = error;
  try {
    error_ = cannotWrite(target_, doing + why(error));
  } catch (...) {
    error_ = "cannot write an output";
  }
}

void OutputFile::throwIfFailed() const {
  if (!error_.empty()) throw OutputError(error_);
}

void OutputFile::write(const void* data, std::size_t size) {
  if (!tryWrite(data, size)) throwIfFailed();
}

bool OutputFile::tryWrite(const void* data, std::size_t size) noexcept {
  return buffer_->drain() && send(static_cast<const char*>(data), size);
}

std::int64_t OutputFile::seek(std::int64_t offset, int whence) noexcept {
  if (inPlace()) {
    errno = ESPIPE;
    return -1;
  }
  if (!buffer_->drain()) return -1;
  return ::lseek(fd_, off_t(offset), whence);
}

std::int64_t OutputFile::length() noexcept {
  struct stat status;
  if (inPlace() || !buffer_->drain() || ::fstat(fd_, &status) != 0) return -1;
  return status.st_size;
}

void OutputFile::flush() {
  buffer_->drain();
  throwIfFailed();
}

void OutputFile::prepareCommit() {
  flush();
  if (!inPlace() && ::fsync(fd_) != 0) fail(errno, "syncing it to the disk failed: ");
  throwIfFailed();
}

void OutputFile::publish() {
  if (inPlace()) {
    committed_ = true;
    return;
  }
  // The temporary name must still lead to the file written (in a folder others may write, it
  // could have been moved away and replaced).
  struct stat written, named;
  if (::fstat(fd_, &written) != 0 || ::lstat(temporary_.c_str(), &named) != 0 ||
      !S_ISREG(named.st_mode) || !sameFile(written, named))
    throw OutputError(
        cannotWrite(target_, "its temporary file " + temporary_.string() +
                                 " was moved or replaced while it was being written"));
  checkNotRead();
  {
    temporaries::StopSignalsBlocked blocked;
    const auto renamed = renameInto(temporary_, target_);
    if (!renamed) throw OutputError(cannotWrite(target_, why(errno)));
    temporaries::forget(slot_);
    committed_ = true;
  }
  syncFolder(folderOf(target_));
}

void OutputFile::checkNotRead() const {
  struct stat replaced;
  if (!inPlace() && ::lstat(target_.c_str(), &replaced) == 0) refuseWhatIsRead(target_, replaced);
}

void OutputFile::commit(const std::function<void()>& beforePublishing) {
  prepareCommit();
  temporaries::StopSignalsBlocked
      blocked;  // the stop cannot come between the last look and the rename
  if (beforePublishing) beforePublishing();
  publish();
}

void OutputFile::checkWritable(const std::filesystem::path& target, OutputWriter writer) {
  if (writer == OutputWriter::leader && !ranks().leader())
    return;  // the other ranks of a distributed run write nowhere
  struct stat link, leadsTo;
  const bool exists = !target.empty() && ::lstat(target.c_str(), &link) == 0;
  if (exists && isStream(link.st_mode)) {
    if (::access(target.c_str(), W_OK) != 0) throw OutputError(cannotWrite(target, why(errno)));
    return;
  }
  if (exists && S_ISLNK(link.st_mode) && ::stat(target.c_str(), &leadsTo) == 0 &&
      isStream(leadsTo.st_mode))
    return;
  OutputFile probe(target, writer);  // a temporary file, made and removed
}

void expectNewName(const std::filesystem::path& name,
                   std::function<std::filesystem::path(const std::filesystem::path&)> next) {
  NewNames& names = newNames();
  const std::lock_guard lock(names.use);
  names.next[name] = std::move(next);
  names.taken.erase(name);
}

std::filesystem::path newNameTaken(const std::filesystem::path& name) {
  NewNames& names = newNames();
  const std::lock_guard lock(names.use);
  names.next.erase(name);
  const auto taken = names.taken.find(name);
  if (taken == names.taken.end()) return name;
  const std::filesystem::path result = taken->second;
  names.taken.erase(taken);
  return result;
}

OutputFile& OutputGroup::open(const std::filesystem::path& target, OutputWriter writer) {
  files_.push_back(std::make_unique<OutputFile>(target, writer));
  return *files_.back();
}

void OutputGroup::commit(const std::function<void()>& beforePublishing) {
  prepareCommit();
  publish(beforePublishing);
}

void OutputGroup::prepareCommit() {
  for (const auto& file : files_) {
    try {
      file->prepareCommit();
    } catch (const OutputError& e) {
      if (!file->readerWentAway()) throw;
      if (!readerGone_) readerGone_ = e;
    }
  }
}

void OutputGroup::publish(const std::function<void()>& beforePublishing) {
  const std::optional<OutputError> readerGone = std::exchange(readerGone_, std::nullopt);
  temporaries::StopSignalsBlocked
      blocked;  // the stop cannot come between the last look and the renames
  if (beforePublishing) beforePublishing();
  std::string written;
  for (const auto& file : files_) {
    if (file->readerWentAway()) continue;
    try {
      file->publish();
    } catch (const OutputError& e) {
      if (written.empty()) throw;
      throw OutputError(std::string(e.what()) + " (written before this failed: " + written + ")");
    }
    written += (written.empty() ? "" : ", ") + file->target().string();
  }
  if (readerGone)
    throw OutputError(std::string(readerGone->what()) +
                      (written.empty() ? "" : " (written all the same: " + written + ")"));
}

}  // namespace nbody
