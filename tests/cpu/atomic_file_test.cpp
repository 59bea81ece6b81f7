// AtomicFileWriter: a regular file is replaced whole or not at all; a pipe or a device is written
// in place and never replaced (`-o /dev/null` run as root must not replace /dev/null).

#include "io/atomic_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/cli_runner.h"

namespace nbody {
namespace {

using test::ScratchFolder;

std::size_t entriesIn(const ScratchFolder& scratch) {
  return std::size_t(std::distance(std::filesystem::directory_iterator(scratch.path()), {}));
}

TEST(AtomicFileWriter, ReplacesARegularFileOnlyOnCommit) {
  ScratchFolder scratch("atomic-regular");
  const auto path = scratch / "out.txt";
  std::ofstream(path) << "old";
  {
    AtomicFileWriter abandoned(path);
    abandoned.stream() << "half";
  }
  EXPECT_EQ(test::readWholeFile(path), "old");
  AtomicFileWriter writer(path);
  writer.stream() << "new";
  EXPECT_EQ(test::readWholeFile(path), "old");
  writer.commit();
  EXPECT_EQ(test::readWholeFile(path), "new");
  EXPECT_EQ(entriesIn(scratch), 1u) << "no temporary file may stay";
}

// A FIFO stands in for /dev/null, which a test must not risk replacing.
TEST(AtomicFileWriter, WritesIntoAPipeInsteadOfReplacingIt) {
  ScratchFolder scratch("atomic-fifo");
  const auto path = scratch / "pipe";
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  // A non-blocking reader lets the writer open the pipe without waiting.
  const int reader = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  {
    AtomicFileWriter writer(path);
    writer.stream() << "through the pipe";
    writer.commit();
  }
  char received[64] = {};
  const ssize_t count = ::read(reader, received, sizeof received - 1);
  ::close(reader);
  EXPECT_EQ(std::string(received, count > 0 ? std::size_t(count) : 0), "through the pipe");
  EXPECT_TRUE(std::filesystem::is_fifo(path));
  EXPECT_EQ(entriesIn(scratch), 1u);
}

}  // namespace
}  // namespace nbody
