#pragma once
// Output files appear whole or not at all: the text goes to a temporary file beside the target,
// which is renamed over the target only once everything was written. Devices and pipes
// (/dev/null, /dev/stdout, a FIFO) are written in place instead: renaming would replace them.

#include <filesystem>
#include <fstream>

namespace nbody {

class AtomicFileWriter {
 public:
  // Opens the temporary file now, so an unwritable path fails before any long work.
  explicit AtomicFileWriter(std::filesystem::path target);
  ~AtomicFileWriter();  // removes the temporary file unless commit() succeeded
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  std::ostream& stream() { return stream_; }
  void commit();  // throws std::runtime_error if anything failed to write

 private:
  std::filesystem::path target_;
  bool writesInPlace_;  // the target is a device or a pipe: no temporary file, no rename
  std::filesystem::path temporary_;
  std::ofstream stream_;
  bool committed_ = false;
};

}  // namespace nbody
