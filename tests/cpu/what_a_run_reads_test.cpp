// The attack of 2026-11-28 on what a run reads: outputs over the files a run reads besides its
// named input (the other parts of a snapshot of several files, the members of a series played,
// the panel-click script), however they are spelled; the XDMF index of a series resumed or shared
// by two patterns; two windows saving under one timestamped name; the CPU engine's doubles through
// CSV; and its messages that did not say what was wrong. docs/robustness.md lists them.

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

#include "app/live/series_player.h"
#include "app/window/panel_clicks.h"
#include "engines/engine.h"
#include "io/csv.h"
#include "io/files_read.h"
#include "io/output_file.h"
#include "io/snapshot.h"
#include "render/camera_path.h"
#include "support/cli_runner.h"
#include "support/fault_injection.h"
#include "support/gadget_writer.h"
#include "util/system_limits.h"

namespace nbody {
namespace {

using test::CommandResult;
using test::expectCleanFailure;
using test::runNbody;
using test::ScratchFolder;

// snap.0 and snap.1: a GADGET-2 snapshot of two files of 4 bodies each, written independently of
// src/io.
void writeTwoPartSnapshot(const ScratchFolder& scratch, const std::string& base = "snap") {
  for (int part = 0; part < 2; ++part) {
    test::GadgetFile file;
    file.count = {0, 4, 0, 0, 0, 0};
    file.total = {0, 8, 0, 0, 0, 0};
    file.massTable = {0, 0.125, 0, 0, 0, 0};
    file.fileCount = 2;
    for (int k = 0; k < 12; ++k)
      file.position.push_back(0.25 * k + part), file.velocity.push_back(0.0);
    for (int k = 0; k < 4; ++k) file.id.push_back(std::uint64_t(1 + 4 * part + k));
    std::ofstream(scratch / (base + "." + std::to_string(part)), std::ios::binary)
        << test::GadgetWriter().write(file);
  }
}

// ser/step-1.nbody ... ser/step-3.nbody: a series to play.
void writeSeries(const ScratchFolder& scratch) {
  std::filesystem::create_directory(scratch / "ser");
  for (int k = 1; k <= 3; ++k)
    ASSERT_EQ(
        runNbody("simulate --engine cpu --bodies 16 -q --steps " + std::to_string(k) + " -o " +
                     (scratch / "ser" / ("step-" + std::to_string(k) + ".nbody")).string(),
                 scratch)
            .exitCode,
        0);
}

// A run whose output is a file it reads: it fails, says so in one line, and the file is untouched.
struct ReadFileCase {
  std::string name;
  std::function<void(const ScratchFolder&)> setup;
  std::string arguments;  // {d}: the scratch folder
  std::string victim;     // the file that must stay as it was
  int exitCode;
  std::string expectedInMessage;
  std::string environment = "";
};
void PrintTo(const ReadFileCase& c, std::ostream* out) { *out << c.arguments; }

class OutputsOverWhatARunReads : public ::testing::TestWithParam<ReadFileCase> {};

TEST_P(OutputsOverWhatARunReads, AreRefusedAndTheFileStays) {
  ScratchFolder scratch("run-reads");
  GetParam().setup(scratch);
  const std::string before = test::readWholeFile(scratch / GetParam().victim);
  ASSERT_FALSE(before.empty());
  const CommandResult result = runNbody(test::withFolder(GetParam().arguments, scratch), scratch,
                                        test::withFolder(GetParam().environment, scratch));
  expectCleanFailure(result, scratch, GetParam().exitCode,
                     test::withFolder(GetParam().expectedInMessage, scratch));
  EXPECT_EQ(test::readWholeFile(scratch / GetParam().victim), before)
      << GetParam().victim << " was replaced";
}

void twoParts(const ScratchFolder& scratch) { writeTwoPartSnapshot(scratch); }
void twoPartsAndALinkToTheFolder(const ScratchFolder& scratch) {
  writeTwoPartSnapshot(scratch);
  std::filesystem::create_directory_symlink(".", scratch / "here");
  std::filesystem::create_directory(scratch / "sub");
}
void twoPartsAndAHardLink(const ScratchFolder& scratch) {
  writeTwoPartSnapshot(scratch);
  std::filesystem::create_hard_link(scratch / "snap.1", scratch / "other-name");
}
void seriesAndClicks(const ScratchFolder& scratch) {
  writeSeries(scratch);
  std::ofstream(scratch / "clicks.txt") << "2 nbody-gl > Pause\n";
}

INSTANTIATE_TEST_SUITE_P(
    Attacks, OutputsOverWhatARunReads,
    ::testing::Values(
        ReadFileCase{"OutputOverTheOtherPart", twoParts,
                     "simulate --engine cpu -q --input {d}/snap.0 --steps 2 -o {d}/snap.1",
                     "snap.1", 1, "cannot write {d}/snap.1: it is a file this run reads"},
        ReadFileCase{"DiagnosticsOverTheOtherPartThroughDotDot", twoPartsAndALinkToTheFolder,
                     "simulate --engine cpu -q --input {d}/snap.0 --steps 2 -o {d}/o.csv "
                     "--diagnostics {d}/sub/../snap.1",
                     "snap.1", 1, "it is a file this run reads"},
        ReadFileCase{"OutputOverTheOtherPartThroughALinkAndASlashTwice",
                     twoPartsAndALinkToTheFolder,
                     "simulate --engine cpu -q --input {d}/snap.0 --steps 2 -o {d}/here//snap.1",
                     "snap.1", 1, "it is a file this run reads (read as {d}/snap.1)"},
        ReadFileCase{"OutputOverAHardLinkOfTheOtherPart", twoPartsAndAHardLink,
                     "simulate --engine cpu -q --input {d}/snap.0 --steps 2 -o {d}/other-name",
                     "snap.1", 1, "it is a file this run reads (read as {d}/snap.1)"},
        ReadFileCase{"AccuracyReportOverTheOtherPart", twoParts,
                     "accuracy --engine cpu -q --input {d}/snap.0 --json {d}/snap.1", "snap.1", 1,
                     "it is a file this run reads"},
        ReadFileCase{
            "MovieOverAMemberOfTheSeriesPlayed", seriesAndClicks,
            "record --play '{d}/ser/step-*.nbody' --width 64 --height 64 -o {d}/ser/step-2.nbody",
            "ser/step-2.nbody", 2, "--out and --play are the same file"},
        ReadFileCase{"MovieOverTheFirstMemberThroughDotDot", seriesAndClicks,
                     "record --play '{d}/ser/step-*.nbody' --width 64 --height 64 -o "
                     "{d}/ser/../ser/step-1.nbody",
                     "ser/step-1.nbody", 2, "--out and --play are the same file"},
        ReadFileCase{
            "ScreenshotOverAMemberOfTheSeriesPlayed", seriesAndClicks,
            "run --play '{d}/ser/step-*.nbody' --frames 2 --screenshot {d}/ser/step-3.nbody",
            "ser/step-3.nbody", 2, "--screenshot and --play are the same file"},
        ReadFileCase{"ScreenshotOverThePanelClicks", seriesAndClicks,
                     "run --frames 2 --screenshot {d}/clicks.txt", "clicks.txt", 2,
                     "--screenshot and NBODY_PANEL_CLICKS are the same file",
                     "NBODY_PANEL_CLICKS={d}/clicks.txt"}),
    [](const auto& param) { return param.param.name; });

// The other part of a two-file snapshot is a FIFO nobody writes: nbody blocked in its open() for
// ever. The parts are opened without blocking and must be files.
TEST(SnapshotParts, ThatArePipesAreRefusedWithoutWaiting) {
  ScratchFolder scratch("part-fifo");
  writeTwoPartSnapshot(scratch);
  std::filesystem::remove(scratch / "snap.1");
  ASSERT_EQ(::mkfifo((scratch / "snap.1").c_str(), 0600), 0);
  const CommandResult result =
      runNbody("simulate --engine cpu -q --steps 0 --input " + (scratch / "snap.0").string() +
                   " -o " + (scratch / "o.csv").string(),
               scratch, "timeout 20");
  expectCleanFailure(result, scratch, 1,
                     "snap.1: it is a pipe; a part of a snapshot of several files must be a file");
}

// The output layer itself, whatever a command checked before: a file read is never replaced, under
// any name that leads to it; a file that is not read is.
TEST(FilesRead, AreNeverReplacedUnderAnyName) {
  ScratchFolder scratch("files-read");
  std::ofstream(scratch / "read.txt") << "kept";
  std::filesystem::create_directory(scratch / "sub");
  std::filesystem::create_directory_symlink(".", scratch / "here");
  std::filesystem::create_hard_link(scratch / "read.txt", scratch / "hard.txt");
  struct stat file;
  ASSERT_EQ(::stat((scratch / "read.txt").c_str(), &file), 0);
  noteFileRead(file, scratch / "read.txt");
  for (const std::string name : {"read.txt", "sub/../read.txt", "here//read.txt", "hard.txt"}) {
    EXPECT_THROW(OutputFile((scratch / name).string()), OutputError) << name;
    EXPECT_EQ(test::readWholeFile(scratch / "read.txt"), "kept") << name;
  }
  OutputFile other((scratch / "other.txt").string());
  other.stream() << "new";
  other.commit();
  EXPECT_EQ(test::readWholeFile(scratch / "other.txt"), "new");
  forgetFilesRead();
}

// A file read after its output was opened is found before the rename.
TEST(FilesRead, ReadAfterTheOutputWasOpenedIsFoundBeforeTheRename) {
  ScratchFolder scratch("files-read-late");
  std::ofstream(scratch / "late.txt") << "kept";
  OutputFile output((scratch / "late.txt").string());
  output.stream() << "replaced";
  noteFileRead(scratch / "late.txt");
  EXPECT_THROW(output.checkNotRead(), OutputError);
  EXPECT_THROW(output.commit(), OutputError);
  EXPECT_EQ(test::readWholeFile(scratch / "late.txt"), "kept");
  forgetFilesRead();
}

// Two windows in one folder save in the same second under the name each found free: the second
// to publish takes the next number, and both snapshots are there, each whole.
TEST(NewNames, TwoOutputsExpectingOneNewNameBothAppear) {
  ScratchFolder scratch("new-names");
  const std::filesystem::path name = scratch / "nbody-20261128-081137.png";
  const auto next = [&](const std::filesystem::path&) {
    return scratch / "nbody-20261128-081137-2.png";
  };
  OutputFile first(name), second(name);
  first.stream() << "first";
  second.stream() << "second";
  expectNewName(name, next);
  first.commit();
  EXPECT_EQ(newNameTaken(name), name);
  expectNewName(name, next);
  second.commit();
  EXPECT_EQ(newNameTaken(name), scratch / "nbody-20261128-081137-2.png");
  EXPECT_EQ(test::readWholeFile(name), "first");
  EXPECT_EQ(test::readWholeFile(scratch / "nbody-20261128-081137-2.png"), "second");
}

std::vector<std::string> indexedFiles(const std::filesystem::path& index) {
  std::vector<std::string> files;
  std::istringstream text(test::readWholeFile(index));
  for (std::string line; std::getline(text, line);)
    if (const auto at = line.find("<Grid Name=\"");
        at != std::string::npos && line.find(".hdf5\"") != std::string::npos)
      files.push_back(line.substr(at + 12, line.find('"', at + 12) - at - 12));
  return files;
}

// A series resumed from one of its snapshots keeps the earlier steps in its index.
TEST(XdmfIndex, OfAResumedSeriesKeepsTheEarlierSnapshots) {
  ScratchFolder scratch("xdmf-resumed");
  const std::string series =
      " --snapshot-every 2 --snapshot-path " + (scratch / "s-{step}.hdf5").string();
  ASSERT_EQ(runNbody("simulate --engine cpu -q --bodies 32 --steps 4 -o " +
                         (scratch / "a.nbody").string() + series,
                     scratch)
                .exitCode,
            0);
  ASSERT_EQ(runNbody("simulate --engine cpu -q --input " + (scratch / "a.nbody").string() +
                         " --steps 4 -o " + (scratch / "b.nbody").string() + series,
                     scratch)
                .exitCode,
            0);
  EXPECT_EQ(indexedFiles(scratch / "s.xmf"),
            (std::vector<std::string>{"s-000000002.hdf5", "s-000000004.hdf5", "s-000000006.hdf5",
                                      "s-000000008.hdf5"}));
}

// Two patterns that differ only in the separator next to {step} share one index name: the second
// series is refused while the first's snapshots are there, and writes its own once they are gone.
TEST(XdmfIndex, OfAnotherSeriesIsNotReplaced) {
  ScratchFolder scratch("xdmf-two");
  const auto run = [&](const std::string& pattern) {
    return runNbody("simulate --engine cpu -q --bodies 32 --steps 2 --snapshot-every 1 -o " +
                        (scratch / "o.csv").string() + " --snapshot-path " +
                        (scratch / pattern).string(),
                    scratch);
  };
  ASSERT_EQ(run("s-{step}.hdf5").exitCode, 0);
  const std::string index = test::readWholeFile(scratch / "s.xmf");
  const CommandResult second = run("s_{step}.hdf5");
  expectCleanFailure(second, scratch, 2, "lists s-000000001.hdf5, a snapshot of another series");
  EXPECT_EQ(test::readWholeFile(scratch / "s.xmf"), index);
  for (const std::string step : {"1", "2"})
    std::filesystem::remove(scratch / ("s-00000000" + step + ".hdf5"));
  ASSERT_EQ(run("s_{step}.hdf5").exitCode, 0);
  EXPECT_EQ(indexedFiles(scratch / "s.xmf"),
            (std::vector<std::string>{"s_000000001.hdf5", "s_000000002.hdf5"}));
}

// Names nbody makes itself that cannot take a snapshot: a pipe at the index's or a snapshot's name
// held the run in open() past a stop signal; `f-{step}/../s.hdf5`, or folders that are links to one
// another, put every snapshot into one file. Usage errors before the first step.
TEST(SnapshotPaths, ThatCannotTakeEverySnapshotAreRefusedBeforeTheFirstStep) {
  ScratchFolder scratch("snapshot-names");
  for (const std::string folder : {"f-000000001", "f-000000002", "run"})
    std::filesystem::create_directory(scratch / folder);
  ASSERT_EQ(::mkfifo((scratch / "run" / "s.xmf").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((scratch / "run" / "p-000000002.nbody").c_str(), 0600), 0);
  std::filesystem::create_directory_symlink("f-000000001", scratch / "f-000000003");
  const auto run = [&](const std::string& pattern) {
    return runNbody("simulate --engine cpu -q --bodies 32 --steps 3 --snapshot-every 1 -o " +
                        (scratch / "o.csv").string() + " --snapshot-path " +
                        (scratch / pattern).string(),
                    scratch, "timeout 20");
  };
  expectCleanFailure(
      run("run/s-{step}.hdf5"), scratch, 2,
      "the XDMF index " + (scratch / "run/s.xmf").string() + " cannot be written: it is a pipe");
  expectCleanFailure(run("run/p-{step}.nbody"), scratch, 2,
                     "the snapshot of step 2 cannot be written: " +
                         (scratch / "run/p-000000002.nbody").string() + " is a pipe");
  expectCleanFailure(run("f-{step}/../same.hdf5"), scratch, 2,
                     "names one file for every step (" + (scratch / "same.hdf5").string() + ")");
  expectCleanFailure(run("f-{step}/s.nbody"), scratch, 2,
                     "the snapshots of steps 1 and 3 are one file");
  EXPECT_FALSE(std::filesystem::exists(scratch / "o.csv"));
}

TEST(XdmfIndex, ThatNbodyDidNotWriteIsNotReplaced) {
  ScratchFolder scratch("xdmf-foreign");
  std::ofstream(scratch / "s.xmf") << "<Xdmf>a user's own</Xdmf>\n";
  expectCleanFailure(
      runNbody("simulate --engine cpu -q --bodies 32 --steps 1 --snapshot-every 1 -o " +
                   (scratch / "o.csv").string() + " --snapshot-path " +
                   (scratch / "s-{step}.hdf5").string(),
               scratch),
      scratch, 2, "is a file nbody did not write");
  EXPECT_EQ(test::readWholeFile(scratch / "s.xmf"), "<Xdmf>a user's own</Xdmf>\n");
}

// The CPU engine holds doubles: CSV keeps them (the shortest digits that read back to the same
// double), so a run resumed from its CSV goes on bit for bit; a run of the float32 state (any
// other engine's) keeps float32 digits.
TEST(DoubleStates, GoThroughCsvBitForBit) {
  ScratchFolder scratch("double-csv");
  const std::string run =
      "simulate --engine cpu -q --scene plummer --bodies 64 --method rk4 --dt 0.01 ";
  ASSERT_EQ(runNbody(run + "--steps 20 -o " + (scratch / "whole.csv").string(), scratch).exitCode,
            0);
  ASSERT_EQ(runNbody(run + "--steps 10 -o " + (scratch / "half.csv").string(), scratch).exitCode,
            0);
  ASSERT_EQ(runNbody("simulate --engine cpu -q --method rk4 --dt 0.01 --input " +
                         (scratch / "half.csv").string() + " --steps 10 -o " +
                         (scratch / "resumed.csv").string(),
                     scratch)
                .exitCode,
            0);
  EXPECT_EQ(test::readWholeFile(scratch / "resumed.csv"),
            test::readWholeFile(scratch / "whole.csv"));
  // And the digits are a double's: more than a float32's 9 somewhere.
  std::istringstream lines(test::readWholeFile(scratch / "whole.csv"));
  std::string line;
  std::getline(lines, line);
  std::getline(lines, line);
  EXPECT_GT(line.substr(0, line.find(',')).size(), 11u) << line;
}

TEST(DoubleStates, RoundTripThroughTheCsvReaderAndWriter) {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> number(-10.0, 10.0);
  State state;
  DoubleState doubles;
  for (int i = 0; i < 100; ++i) {
    const glm::dvec3 x(number(random), number(random), number(random)),
        v(number(random), 0.0, -number(random));
    const double m = std::abs(number(random)) + 1e-300;
    doubles.position.push_back(x), doubles.velocity.push_back(v), doubles.mass.push_back(m);
    state.positionMass.emplace_back(glm::vec3(x), float(m));
    state.velocity.emplace_back(glm::vec3(v), 0.0f);
  }
  std::ostringstream text;
  writeStateCsv(state, text, &doubles);
  std::istringstream in(text.str());
  std::optional<DoubleState> back;
  const State floats = readStateCsv(in, "doubles.csv", &back);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->position, doubles.position);
  EXPECT_EQ(back->velocity, doubles.velocity);
  EXPECT_EQ(back->mass, doubles.mass);
  for (std::size_t i = 0; i < state.size(); ++i)
    EXPECT_EQ(floats.positionMass[i], state.positionMass[i]) << i;
  // A state of float32s alone brings no doubles back.
  std::ostringstream floatText;
  writeStateCsv(state, floatText);
  std::istringstream floatIn(floatText.str());
  std::optional<DoubleState> none;
  readStateCsv(floatIn, "floats.csv", &none);
  EXPECT_FALSE(none.has_value());
}

// Messages of the attack that did not say what was wrong, made clear. Every case runs in a folder
// holding what any of them reads ({d}); exit 0 where the input is right and was refused before.
struct MessageCase {
  std::string name, arguments;
  int exitCode;
  std::string expectedInMessage;
  std::string environment = "";
};
void PrintTo(const MessageCase& c, std::ostream* out) { *out << c.arguments; }

void writeMessageInputs(const ScratchFolder& scratch) {
  std::ofstream(scratch / "tiny.csv")
      << "x,y,z,mass,vx,vy,vz\n1e-400,0,0,1,0,0,0\n0."
         "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
         "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
         "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
         "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
         "00000000000000000000000000000000000001,0,0,1,0,0,0\n";
  std::filesystem::create_directories(scratch / "locked" / "in");
  std::ofstream(scratch / "locked" / "in" / "a.nbody") << "x";
  ::chmod((scratch / "locked").c_str(), 0700);
  // A PNG of 20000 x 20000 pixels in its header (valid, and more than nbody compares), and a
  // small one whose header's CRC is wrong.
  const auto chunk = [](const std::string& type, const std::string& data) {
    const auto big = [](std::uint32_t v) {
      return std::string{char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
    };
    std::uint32_t crc = 0xFFFFFFFFu;
    for (const char c : type + data) {
      crc ^= static_cast<unsigned char>(c);
      for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return big(std::uint32_t(data.size())) + type + data + big(~crc);
  };
  const auto header = [](std::uint32_t side) {
    std::string bytes;
    for (int k = 0; k < 2; ++k)
      bytes += std::string{char(side >> 24), char(side >> 16), char(side >> 8), char(side)};
    return bytes + std::string("\x08\x02\x00\x00\x00", 5);
  };
  const std::string signature = "\x89PNG\r\n\x1a\n";
  std::ofstream(scratch / "huge.png", std::ios::binary)
      << signature + chunk("IHDR", header(20000)) + chunk("IEND", "");
  std::string empty = header(2);
  empty.replace(0, 4, std::string(4, '\0'));  // a width of 0
  std::ofstream(scratch / "empty.png", std::ios::binary)
      << signature + chunk("IHDR", empty) + chunk("IEND", "");
  std::string flipped = signature + chunk("IHDR", header(2)) + chunk("IEND", "");
  flipped[29] ^= 1;  // the last byte of the header's CRC
  std::ofstream(scratch / "crc.png", std::ios::binary) << flipped;
}

class RoundThreeMessages : public ::testing::TestWithParam<MessageCase> {};

TEST_P(RoundThreeMessages, SayWhatIsWrong) {
  ScratchFolder scratch("round-three");
  writeMessageInputs(scratch);
  const std::string environment = test::withFolder(GetParam().environment, scratch);
  if (environment == "skip") GTEST_SKIP() << "not run as root";
  const CommandResult result =
      runNbody(test::withFolder(GetParam().arguments, scratch), scratch, environment);
  if (GetParam().exitCode == 0) {
    EXPECT_EQ(result.exitCode, 0) << result.err;
    return;
  }
  expectCleanFailure(result, scratch, GetParam().exitCode,
                     test::withFolder(GetParam().expectedInMessage, scratch));
  EXPECT_LT(result.err.size(), 600u) << "one short line";
}

std::string nobody() {
  return ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "skip";
}

INSTANTIATE_TEST_SUITE_P(
    Messages, RoundThreeMessages,
    ::testing::Values(
        MessageCase{"CsvNumbersTooSmallForADoubleBecomeZero",
                    "simulate --engine cpu -q --input {d}/tiny.csv --steps 0 -o {d}/o.csv", 0, ""},
        MessageCase{
            "FifteenThousandIdsAreNotEchoedWhole", "shot --select $(seq -s, 1 15000) -o {d}/p.png",
            2,
            "--select: '1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,2...': at "
            "most 64 IDs, got 15000"},
        MessageCase{"ASeriesInAFolderThatCannotBeSearched",
                    "record --play '{d}/locked/in/*.nbody' -o {d}/m.mp4", 2,
                    "no snapshot file matches {d}/locked/in/*.nbody ({d}/locked/in: the folder "
                    "{d}/locked on the way "
                    "cannot be searched (Permission denied))",
                    nobody()},
        MessageCase{"APictureLargerThanNbodyCompares", "compare {d}/huge.png {d}/huge.png", 2,
                    "huge.png: 20000 x 20000 pixels, more than the 268435456 (16384 x 16384) nbody "
                    "handles"},
        MessageCase{"APictureWhoseHeaderDoesNotMatchItsCrc", "compare {d}/crc.png {d}/crc.png", 2,
                    "crc.png: it is damaged: its IHDR chunk at byte 8 does not match its CRC"},
        MessageCase{"APictureOfNoPixels", "compare {d}/empty.png {d}/empty.png", 2,
                    "empty.png: its header announces 0 x 2 pixels, none to compare"}),
    [](const auto& param) { return param.param.name; });

// The same for what is read inside a command, where the line comes from a reader.
TEST(RoundThreeMessages, AClickOnALevelBeyondAnIntSaysSo) {
  try {
    parsePanelClicks("2 nbody-gl > #99999999999999999999\n");
    FAIL() << "a level no int holds was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("line 1: the level #99999999999999999999 is beyond"),
              std::string::npos)
        << e.what();
  }
}

TEST(RoundThreeMessages, AnEngineNumberTooSmallForStodIsTheNumberItChecked) {
  EngineOption theta("theta", "opening angle", {}, "1e-320", EngineOption::Range{0.0, 1.0});
  EXPECT_EQ(numberChoice(theta), 1e-320);
}

TEST(RoundThreeMessages, TwoSizesThatReadAlikeAreSaidInBytes) {
  EXPECT_EQ(comparedBytes(double((128 << 20) + 4), double(128 << 20)),
            (std::pair<std::string, std::string>{"134217732 bytes", "134217728 bytes"}));
  EXPECT_EQ(comparedBytes(double(256 << 20), double(128 << 20)),
            (std::pair<std::string, std::string>{"256 MiB", "128 MiB"}));
}

TEST(RoundThreeMessages, ACommentMayFollowAKeyframe) {
  const CameraPath path = parseCameraPath("0 0 20 5 # a comment\n1 10 20 5#another\n", "cam.txt");
  EXPECT_EQ(path.keyframes().size(), 2u);
  try {
    parseCameraPath("\xef\xbb\xbf# a comment\n0 0 20 5\n", "cam.txt");
    FAIL() << "a byte-order mark was taken";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cam.txt:1: the file starts with a UTF-8 byte-order mark"),
              std::string::npos);
  }
}

// The re-attack's click scripts: a frame that is only partly a number, or beyond any, and a click
// whose frame the run never reaches, each said so.
TEST(RoundThreeMessages, ClickScriptsSayWhatIsWrongWithTheirFrames) {
  for (const auto& [script, expected] : std::vector<std::pair<std::string, std::string>>{
           {"2.5 nbody-gl > Pause (Space)\n", "line 1: its frame '2.5' is not a whole number"},
           {"99999999999999999999999 nbody-gl > Pause (Space)\n",
            "line 1: its frame must be in [0, "}}) {
    try {
      parsePanelClicks(script);
      FAIL() << script;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
  const PanelClicks late(parsePanelClicks("1000 nbody-gl > Pause (Space)\n"));
  try {
    late.afterLastFrame(4);
    FAIL() << "a click the run never reached passed silently";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "panel click at frame 1000 never came: the run ended after frame 4");
  }
}

TEST(RoundThreeMessages, AnEngineNumberTooSmallForADoubleSaysSo) {
  EngineOption theta("theta", "opening angle", {"0", "1"}, "1", EngineOption::Range{0.0, 1.0});
  try {
    chooseOption(theta, "1e-400");
    FAIL() << "1e-400 was taken";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("theta '1e-400' is too small: a double would make it 0"),
              std::string::npos)
        << e.what();
  }
}

TEST(RoundThreeMessages, ACsvNumberMayCarryAPlus) {
  std::istringstream text("x,y,z,mass,vx,vy,vz\n+1,0,0,+2,0,0,+0.5\n");
  const State state = readStateCsv(text, "plus.csv");
  EXPECT_EQ(state.positionMass[0], glm::vec4(1, 0, 0, 2));
  EXPECT_EQ(state.velocity[0].z, 0.5f);
}

// A series pattern passes over what is no snapshot (a loop of links, a folder, the XDMF index
// beside an HDF5 series) and plays the rest, in natural order.
TEST(RoundThreeMessages, ASeriesPassesOverLinkLoopsAndItsIndex) {
  ScratchFolder scratch("series-skips");
  for (const std::string name : {"s-1.hdf5", "s-2.hdf5", "s.xmf"})
    std::ofstream(scratch / name) << "x";
  std::filesystem::create_symlink("s-loop.hdf5", scratch / "s-loop.hdf5");
  std::filesystem::create_directory(scratch / "s-dir.hdf5");
  EXPECT_EQ(listSeries((scratch / "s*").string()),
            (std::vector<std::filesystem::path>{scratch / "s-1.hdf5", scratch / "s-2.hdf5"}));
  forgetFilesRead();
}

}  // namespace
}  // namespace nbody
