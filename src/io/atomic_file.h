#pragma once
// Output files appear whole or not at all: the text goes to a temporary file beside the target,
// which is renamed over the target only once everything was written. Devices and pipes
// (/dev/null, /dev/stdout, a FIFO) are written in place instead: renaming would replace them.

#include <filesystem>
#include <fstream>

namespace nbody {

// The naming half of an atomic write, for writers that open files by name themselves (libavformat
// reopens an MP4 to move its index to the front): a temporary name beside the target, renamed over
// the target by commit(), removed if commit() never happened.
class AtomicOutputPath {
 public:
  // Throws std::runtime_error when the target is a directory. Creates no file.
  explicit AtomicOutputPath(std::filesystem::path target);
  ~AtomicOutputPath();  // removes the temporary file unless commit() succeeded
  AtomicOutputPath(const AtomicOutputPath&) = delete;
  AtomicOutputPath& operator=(const AtomicOutputPath&) = delete;

  const std::filesystem::path& target() const { return target_; }
  // Where to write: the temporary name, or the target itself when it is a device or a pipe.
  const std::filesystem::path& temporary() const { return temporary_; }
  bool writesInPlace() const { return writesInPlace_; }
  void commit();  // renames; throws std::runtime_error if that fails

 private:
  std::filesystem::path target_;
  bool writesInPlace_;  // the target is a device or a pipe: no temporary file, no rename
  std::filesystem::path temporary_;
  bool committed_ = false;
};

class AtomicFileWriter {
 public:
  // Opens the temporary file now, so an unwritable path fails before any long work.
  explicit AtomicFileWriter(std::filesystem::path target);
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  std::ostream& stream() { return stream_; }
  void commit();  // throws std::runtime_error if anything failed to write

 private:
  AtomicOutputPath path_;  // declared first: the stream closes before the file is removed
  std::ofstream stream_;
};

}  // namespace nbody
