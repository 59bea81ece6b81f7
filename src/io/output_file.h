#pragma once
// Every file nbody writes goes through here: states, snapshots, diagnostics, bench reports,
// pictures (and movies: any library that writes a byte stream can write through write(),
// tryWrite() and seek(), or through descriptor()).
//
// A regular file appears whole or not at all, and nothing else is ever written:
//   - the bytes go to a temporary file in the target's folder, named <name>.nbody-tmp-XXXXXX with
//     six random characters, created exclusively (mkostemp: O_CREAT | O_EXCL, which never follows
//     a symbolic link, and O_CLOEXEC), with the target's permissions, owner and group (a new
//     file: 0666 less the umask, nbody's user);
//   - commit() writes out what is buffered, fsyncs the file, checks that the temporary name still
//     leads to the file written, renames it over the target and fsyncs the folder;
//   - an output that is not committed (an error, a stop) is removed by the destructor, and by the
//     signal handler when a second signal ends the run at once (io/temporary_files.h).
// What is written in place, with no temporary file, is decided from what the path is (lstat) and
// what was opened (fstat), never from the name:
//   - a terminal, a pipe (FIFO) or a character device (/dev/null, /dev/full, /dev/tty);
//   - a symbolic link to one of those (/dev/stdout when it is a terminal or a pipe);
//   - a symbolic link to the regular file standard output or standard error is redirected to
//     (`-o /dev/stdout > file`): written through that descriptor, where the shell's redirection
//     put it (appending for >>), never truncated nor replaced.
// Refused, with one line naming the path: an empty path, a folder, a block device or socket, a
// symbolic link to any other regular file or to nothing (replacing the link would drop it, writing
// through it would let a planted link send the output anywhere: name the file itself), an
// existing file nbody may not write (read-only, or another user's in a sticky folder such as
// /tmp). Everything is checked when the output is opened, so an unwritable path fails before the
// run. In a distributed run (parallel/ranks.h) rank 0 writes the outputs; the other ranks' go to
// /dev/null, but for an output each rank writes, its own (OutputWriter::everyRank: a snapshot's
// part).

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/stat.h>

namespace nbody {

// Why an output could not be opened or written: one line that names the file and the problem.
struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Who writes an output in a distributed run: rank 0 alone, or every rank a file of its own.
enum class OutputWriter { leader, everyRank };

class OutputFile {
 public:
  // Opens the output now. Throws OutputError.
  explicit OutputFile(std::filesystem::path target, OutputWriter writer = OutputWriter::leader);
  ~OutputFile();  // removes the temporary file unless committed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  const std::filesystem::path& target() const { return target_; }
  // True when written directly (a terminal, pipe, device, or redirected standard stream): the
  // bytes arrive as they are written, and commit() has nothing to rename.
  bool inPlace() const { return temporary_.empty(); }

  // For text: an ostream over the file, buffered. A failed write is kept and thrown by flush(),
  // commit() or the next write().
  std::ostream& stream() { return stream_; }

  // For bytes: write() throws OutputError; tryWrite() never throws (for a C library's write
  // callback, e.g. an FFmpeg AVIOContext): on failure it returns false and keeps the error for
  // commit() to throw.
  void write(const void* data, std::size_t size);
  bool tryWrite(const void* data, std::size_t size) noexcept;
  // Whether seek() works: true for regular files (written through a temporary file), false in
  // place. seek() is lseek() after the buffered bytes are written: the new offset, or -1 where the
  // output cannot seek (errno ESPIPE) or the write failed. length(): the bytes in the file, -1 in
  // place.
  bool seekable() const { return !inPlace(); }
  std::int64_t seek(std::int64_t offset, int whence) noexcept;
  std::int64_t length() noexcept;
  // The open descriptor, for libraries that write through one themselves: call flush() before
  // handing it over if stream() or write() were used, and never close it.
  int descriptor() const { return fd_; }
  // The temporary file's name (empty in place), for a library that reads back by name what it
  // wrote through write() (libavformat's faststart pass reopens the MP4 to move its index).
  const std::filesystem::path& temporaryPath() const { return temporary_; }

  // Everything written so far goes to the file or stream; throws OutputError if any write failed.
  void flush();
  // Makes the output final: flush(), then for a regular file fsync, rename over the target and
  // fsync of the folder. Throws OutputError; the target is then untouched. `beforePublishing`, if
  // given, runs once everything is written, just before the rename, with the stop signals held
  // back until the rename is done: what it throws abandons the output (a stop that came while the
  // file was written), and a stop that comes during the rename finds the file complete.
  void commit(const std::function<void()>& beforePublishing = {});

  // commit() in two halves, for OutputGroup: everything that can fail for want of space first
  // (flush and fsync), then the renames.
  void prepareCommit();
  void publish();

  // Whether it is written in place into a pipe whose reader went away (EPIPE): the reader's
  // choice, not a failure to keep what was written (OutputGroup commits the others).
  bool readerWentAway() const { return inPlace() && failedWith_ == EPIPE; }

  // Throws OutputError where the target is a file the run has read since the output was opened
  // (io/files_read.h): for a command that opens its outputs before it reads its inputs, called
  // once they are read, so that it fails before its work (publishing checks it again).
  void checkNotRead() const;

  // Whether `target` could be opened (the same checks as the constructor), without opening it
  // where opening has an effect (a pipe would see its end, a device its open): a temporary file is
  // made and removed for a regular file; a device, pipe or link to one is only checked. Throws
  // OutputError saying why not.
  static void checkWritable(const std::filesystem::path& target,
                            OutputWriter writer = OutputWriter::leader);

 private:
  class Buffer;
  void openTemporary(unsigned permissions);
  void keepOwnerOf(const struct stat& replaced);
  void openThroughLink();
  void openInPlace();
  void openNowhere();
  bool send(const char* data, std::size_t size) noexcept;
  void fail(int error, const std::string& doing = "") noexcept;
  void throwIfFailed() const;

  std::filesystem::path target_;
  std::filesystem::path temporary_;  // empty: written in place
  int fd_ = -1;
  int slot_ = -1;  // in the list of temporary files (io/temporary_files.h)
  bool committed_ = false;
  std::string error_;   // the first failure, "cannot write X: why"
  int failedWith_ = 0;  // its errno
  std::unique_ptr<Buffer> buffer_;
  std::ostream stream_;
};

// Names an output must be new under when it appears, not only when they were chosen: the window's
// timestamped saves (app/window/window_capture.h), which several windows in one folder may choose
// in the same second. Publishing an output to such a name renames it only where no file has that
// name by then (RENAME_NOREPLACE), else under `next(name)`, next(next(name)), ... (at most 1000);
// newNameTaken() says the name it went under (and forgets the request).
void expectNewName(const std::filesystem::path& name,
                   std::function<std::filesystem::path(const std::filesystem::path&)> next);
std::filesystem::path newNameTaken(const std::filesystem::path& name);

// The outputs of one run (the final state and the diagnostics; a bench report's JSON and CSV):
// opened together at the start, so an unwritable one fails before the run, and committed together
// at the end, so a run that fails leaves none of them. Only a rename failing after others
// succeeded (the folder changed under the run) can leave some; the message then says which. A
// pipe whose reader went away is the exception: the others are committed, then its error thrown.
class OutputGroup {
 public:
  OutputFile& open(const std::filesystem::path& target, OutputWriter writer = OutputWriter::leader);
  // `beforePublishing` as for OutputFile::commit, once for all of them, before the first rename.
  void commit(const std::function<void()>& beforePublishing = {});
  // commit() in two halves, for ranks that each write a part and agree that every part is
  // written before any is published: everything that can fail for want of space, then the
  // renames (`beforePublishing` first).
  void prepareCommit();
  void publish(const std::function<void()>& beforePublishing = {});
  bool empty() const { return files_.empty(); }

 private:
  std::vector<std::unique_ptr<OutputFile>> files_;
  std::optional<OutputError> readerGone_;  // the first pipe whose reader went away
};

}  // namespace nbody
