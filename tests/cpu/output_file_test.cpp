// The output layer (io/output_file.h) as an attacker meets it: a regular file is replaced whole or
// not at all through an unguessable temporary file that no planted link can redirect; devices and
// pipes are written in place and never replaced; links are followed only to what is written in
// place; a group of outputs is committed together or not at all.

#include "io/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>

#include "io/output_paths.h"
#include "io/temporary_files.h"
#include "support/cli_runner.h"

namespace nbody {
namespace {

using test::ScratchFolder;

std::size_t entriesIn(const ScratchFolder& scratch) {
  return std::size_t(std::distance(std::filesystem::directory_iterator(scratch.path()), {}));
}

std::string refusalOf(const std::filesystem::path& target) {
  try {
    OutputFile file(target);
  } catch (const OutputError& e) {
    return e.what();
  }
  return "";
}

TEST(OutputFile, ReplacesARegularFileOnlyOnCommit) {
  ScratchFolder scratch("output-regular");
  const auto path = scratch / "out.txt";
  std::ofstream(path) << "old";
  {
    OutputFile abandoned(path);
    abandoned.stream() << "half";
    abandoned.flush();
  }
  EXPECT_EQ(test::readWholeFile(path), "old");
  OutputFile writer(path);
  writer.stream() << "new";
  EXPECT_EQ(test::readWholeFile(path), "old");
  writer.commit();
  EXPECT_EQ(test::readWholeFile(path), "new");
  EXPECT_EQ(entriesIn(scratch), 1u) << "no temporary file may stay";
}

// A FIFO stands in for /dev/null, which a test must not risk replacing.
TEST(OutputFile, WritesIntoAPipeInsteadOfReplacingIt) {
  ScratchFolder scratch("output-fifo");
  const auto path = scratch / "pipe";
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  // A non-blocking reader lets the writer open the pipe without waiting.
  const int reader = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  {
    OutputFile writer(path);
    EXPECT_TRUE(writer.inPlace());
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

// The old layer wrote to `<target>.tmp-<pid>` with a plain open that followed links: a link
// planted there by another user made nbody overwrite whatever it pointed to.
TEST(OutputFile, ALinkPlantedOnThePredictableTemporaryNameIsNotFollowed) {
  ScratchFolder scratch("output-planted-temporary");
  const auto target = scratch / "out.csv", victim = scratch / "victim.txt";
  std::ofstream(victim) << "precious";
  const auto planted = scratch / ("out.csv.tmp-" + std::to_string(::getpid()));
  std::filesystem::create_symlink(victim, planted);
  OutputFile writer(target);
  writer.stream() << "result";
  writer.commit();
  EXPECT_EQ(test::readWholeFile(victim), "precious");
  EXPECT_FALSE(std::filesystem::is_symlink(target))
      << "the output must not become the planted link";
  EXPECT_EQ(test::readWholeFile(target), "result");
}

TEST(OutputFile, TemporaryNamesAreUnguessableAndNeverShared) {
  ScratchFolder scratch("output-names");
  const auto target = scratch / "out.csv";
  std::set<std::string> names;
  {
    std::vector<std::unique_ptr<OutputFile>> open;
    for (int k = 0; k < 8; ++k) open.push_back(std::make_unique<OutputFile>(target));
    for (const auto& entry : std::filesystem::directory_iterator(scratch.path()))
      names.insert(entry.path().filename().string());
  }
  EXPECT_EQ(names.size(), 8u) << "each open output has a temporary file of its own";
  for (const std::string& name : names) {
    EXPECT_EQ(name.rfind("out.csv.nbody-tmp-", 0), 0u) << name;
    EXPECT_EQ(name.size(), std::string("out.csv.nbody-tmp-").size() + 6) << name;
    EXPECT_EQ(name.find(std::to_string(::getpid())), std::string::npos) << "no pid in " << name;
  }
  EXPECT_EQ(entriesIn(scratch), 0u);
}

// A link on the target itself: replacing the link would drop it, writing through it would let a
// planted link send the output anywhere. Refused, with the link and what it leads to untouched.
TEST(OutputFile, ALinkOnTheTargetToARegularFileIsRefusedAndLeftAsItWas) {
  ScratchFolder scratch("output-link-target");
  const auto target = scratch / "out.csv", victim = scratch / "victim.txt";
  std::ofstream(victim) << "precious";
  std::filesystem::create_symlink(victim, target);
  const std::string refusal = refusalOf(target);
  EXPECT_NE(refusal.find("symbolic link"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find(target.string()), std::string::npos) << refusal;
  EXPECT_TRUE(std::filesystem::is_symlink(target));
  EXPECT_EQ(test::readWholeFile(victim), "precious");
  EXPECT_EQ(entriesIn(scratch), 2u);
  std::filesystem::create_symlink(scratch / "nothing-here", scratch / "dangling");
  EXPECT_NE(refusalOf(scratch / "dangling").find("symbolic link"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(scratch / "nothing-here"));
}

TEST(OutputFile, ALinkToAPipeIsWrittenThrough) {
  ScratchFolder scratch("output-link-pipe");
  const auto pipe = scratch / "pipe", link = scratch / "link";
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  std::filesystem::create_symlink(pipe, link);
  const int reader = ::open(pipe.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  {
    OutputFile writer(link);
    EXPECT_TRUE(writer.inPlace());
    writer.stream() << "via the link";
    writer.commit();
  }
  char received[64] = {};
  const ssize_t count = ::read(reader, received, sizeof received - 1);
  ::close(reader);
  EXPECT_EQ(std::string(received, count > 0 ? std::size_t(count) : 0), "via the link");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
}

TEST(OutputFile, WhatIsNoFileToWriteIsRefusedWithOneLine) {
  ScratchFolder scratch("output-refusals");
  for (const auto& [path, problem] : std::vector<std::pair<std::filesystem::path, std::string>>{
           {"", "empty"},
           {scratch.path(), "folder"},
           {scratch.path().string() + "/", "ends in /"},
           {scratch / "missing-folder" / "out.csv", "No such file or directory"}}) {
    const std::string refusal = refusalOf(path);
    EXPECT_NE(refusal.find(problem), std::string::npos) << path << ": " << refusal;
    EXPECT_EQ(refusal.find('\n'), std::string::npos);
  }
  EXPECT_EQ(entriesIn(scratch), 0u);
}

TEST(OutputFile, AFullDeviceFailsAtTheFlushNamingTheFile) {
  OutputFile full("/dev/full");
  full.stream() << "bytes";
  try {
    full.flush();
    FAIL() << "writing to /dev/full succeeded";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write /dev/full: No space left on device"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(full.tryWrite("more", 4)) << "the failure is kept";
}

TEST(OutputFile, BinaryWritersCanSeekInARegularFileButNotInAStream) {
  ScratchFolder scratch("output-seek");
  const auto path = scratch / "movie.bin";
  OutputFile file(path);
  ASSERT_TRUE(file.seekable());
  file.write("HEADER--payload", 15);
  EXPECT_EQ(file.length(), 15);
  EXPECT_EQ(file.seek(0, SEEK_SET), 0);
  EXPECT_TRUE(file.tryWrite("header", 6));
  EXPECT_EQ(file.seek(0, SEEK_END), 15);
  file.commit();
  EXPECT_EQ(test::readWholeFile(path), "header--payload");
  OutputFile stream("/dev/null");
  EXPECT_FALSE(stream.seekable());
  EXPECT_EQ(stream.seek(0, SEEK_SET), -1);
  EXPECT_EQ(stream.length(), -1);
}

TEST(OutputFile, NewFilesGetTheUmasksPermissionsAndReplacedFilesKeepTheirs) {
  ScratchFolder scratch("output-permissions");
  const mode_t mask = ::umask(022);
  {
    OutputFile created(scratch / "new.txt");
    created.commit();
  }
  std::ofstream(scratch / "kept.txt") << "old";
  std::filesystem::permissions(scratch / "kept.txt", std::filesystem::perms(0640));
  {
    OutputFile replaced(scratch / "kept.txt");
    replaced.commit();
  }
  ::umask(mask);
  EXPECT_EQ(int(std::filesystem::status(scratch / "new.txt").permissions()), 0644);
  EXPECT_EQ(int(std::filesystem::status(scratch / "kept.txt").permissions()), 0640);
}

// What a second signal's handler removes: every temporary file open, and none once committed.
TEST(OutputFile, TemporaryFilesAreListedForTheSignalHandlerUntilCommitted) {
  ScratchFolder scratch("output-registry");
  const int before = temporaries::count();
  OutputFile kept(scratch / "kept.txt");
  kept.stream() << "done";
  kept.commit();
  EXPECT_EQ(temporaries::count(), before);
  OutputFile pending(scratch / "pending.txt");
  EXPECT_EQ(temporaries::count(), before + 1);
  temporaries::removeAllNow();
  EXPECT_EQ(entriesIn(scratch), 1u) << "only the committed file stays";
}

TEST(OutputGroup, CommitsNoneOfItsFilesWhenOneFails) {
  ScratchFolder scratch("output-group");
  const auto json = scratch / "b.json";
  {
    OutputGroup group;
    group.open(json).stream() << "{}";
    group.open("/dev/full").stream() << "rows";
    EXPECT_THROW(group.commit(), OutputError);
  }
  EXPECT_EQ(entriesIn(scratch), 0u) << "b.json must not be written when the other output failed";
}

TEST(OutputPaths, OneFileHoweverItIsNamed) {
  ScratchFolder scratch("output-paths");
  std::filesystem::create_directories(scratch / "sub");
  std::filesystem::create_directory_symlink(scratch.path(), scratch / "here");
  const auto file = scratch / "out.csv";
  EXPECT_TRUE(sameOutputFile(file, scratch / "sub" / ".." / "out.csv"));
  EXPECT_TRUE(sameOutputFile(file, scratch / "here" / "out.csv"));
  EXPECT_TRUE(sameOutputFile(file, scratch / "." / "out.csv"));
  EXPECT_FALSE(sameOutputFile(file, scratch / "sub" / "out.csv"));
  EXPECT_FALSE(sameOutputFile("/dev/null", "/dev/null")) << "a device keeps nothing to mix up";
}

}  // namespace
}  // namespace nbody
