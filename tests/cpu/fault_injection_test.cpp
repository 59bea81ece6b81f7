// Attacks on the real nbody, as a hostile user or a hostile machine would make them: links
// planted where nbody writes, /dev/stdout redirected to a file, full devices and file-size
// limits, signals in the middle of a run, one path given twice, snapshots with extreme counters,
// states that turn non-finite, bytes in files meant for a terminal. Every case names what must
// hold afterwards: no temporary file, no partial output, no file written through a link, one
// line saying what happened. docs/robustness.md lists them.

#include <gtest/gtest.h>

#include <climits>
#include <csignal>
#include <fstream>
#include <functional>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "io/binary_snapshot.h"
#include "io/png.h"
#include "io/snapshot.h"
#include "physics/scenes.h"
#include "support/cli_runner.h"
#include "support/fault_injection.h"
#include "support/tipsy_writer.h"

namespace nbody {
namespace {

using test::CommandResult;
using test::expectCleanFailure;
using test::namesIn;
using test::RunningNbody;
using test::runNbody;
using test::ScratchFolder;

const std::string kSmallRun = "simulate --engine cpu --bodies 64 --steps 3 -q ";

// The bytes of a 2 x 2 PNG, and the file.
std::string tinyPngBytes() {
  static const std::string bytes = [] {
    ScratchFolder scratch("tiny-png");
    writePng(Image(2, 2), scratch / "tiny.png");
    return test::readWholeFile(scratch / "tiny.png");
  }();
  return bytes;
}
void writeTinyPng(const std::filesystem::path& path) { std::ofstream(path, std::ios::binary) << tinyPngBytes(); }

// The old temporary name was `<target>.tmp-<pid>`: links planted on the names of the next pids
// made nbody overwrite the file they point to. Now the names are random and made exclusively.
TEST(PlantedLinks, OnTheTemporaryNamesOfTheNextProcessesRedirectNothing) {
  ScratchFolder scratch("planted-pids");
  const auto victim = scratch / "victim.txt";
  std::ofstream(victim) << "precious";
  long lastPid = 0;
  std::ifstream("/proc/sys/kernel/ns_last_pid") >> lastPid;
  if (lastPid == 0) GTEST_SKIP() << "the next pids cannot be known here";
  for (long pid = lastPid + 1; pid <= lastPid + 2000; ++pid)
    std::filesystem::create_symlink(victim, scratch / ("out.csv.tmp-" + std::to_string(pid)));
  const auto result = runNbody(kSmallRun + "-o " + (scratch / "out.csv").string(), scratch);
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(test::readWholeFile(victim), "precious");
  EXPECT_FALSE(std::filesystem::is_symlink(scratch / "out.csv"));
  EXPECT_EQ(test::readWholeFile(scratch / "out.csv").rfind("x,y,z,mass,vx,vy,vz\n", 0), 0u);
}

TEST(PlantedLinks, OnTheOutputItselfAreRefusedAndLeftAsTheyWere) {
  ScratchFolder scratch("planted-target");
  const auto victim = scratch / "victim.txt", link = scratch / "out.csv";
  std::ofstream(victim) << "precious";
  std::filesystem::create_symlink(victim, link);
  const auto result = runNbody(kSmallRun + "-o " + link.string(), scratch);
  expectCleanFailure(result, scratch, 1, "out.csv: it is a symbolic link");
  EXPECT_TRUE(std::filesystem::is_symlink(link)) << "the link must not be replaced by a regular file";
  EXPECT_EQ(test::readWholeFile(victim), "precious");
}

// `-o /dev/stdout > file`: /dev/stdout is a link to /proc/self/fd/1, which leads to the file. The
// old layer saw a regular file behind the link, renamed a temporary file over the link (as root,
// over /dev/stdout itself) and the redirected file got nothing. A link of the test's own to
// /proc/self/fd/1 stands in for /dev/stdout, which a test run as root must not risk replacing.
TEST(StandardOutput, ALinkToItWhenItIsRedirectedToAFileAppendsToThatFile) {
  ScratchFolder scratch("stdout-link");
  const auto link = scratch / "stdout-link";
  std::filesystem::create_symlink("/proc/self/fd/1", link);
  std::ofstream(scratch / "log.txt") << "before\n";
  const std::string command = std::string(NBODY_EXECUTABLE) + " " + kSmallRun + "-o " + link.string() + " >> " +
                              (scratch / "log.txt").string() + " 2>" + (scratch / "stderr.txt").string();
  ASSERT_EQ(std::system(command.c_str()), 0) << test::readWholeFile(scratch / "stderr.txt");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  const std::string log = test::readWholeFile(scratch / "log.txt");
  EXPECT_EQ(log.rfind("before\nx,y,z,mass,vx,vy,vz\n", 0), 0u) << log;
  EXPECT_EQ(test::lineCount(log), 2u + 64u);
}

// With a standard stream closed (`2>&-`) its descriptor was free, and the first output nbody
// opened took it: the progress lines went into the CSV, the snapshot, the report. Every output
// must be the same bytes as with the streams open.
struct ClosedStreamCase {
  std::string name, arguments, extension;
};
void PrintTo(const ClosedStreamCase& streamCase, std::ostream* out) { *out << streamCase.arguments; }

const std::string kLoudRun = "simulate --engine cpu --bodies 64 --steps 3 ";  // with its progress lines

class ClosedStandardStreams : public ::testing::TestWithParam<ClosedStreamCase> {};

TEST_P(ClosedStandardStreams, LeaveTheOutputsAsWithTheStreamsOpen) {
  ScratchFolder scratch("closed-streams-" + GetParam().name);
  EXPECT_EQ(test::closedStreamsThatChangeTheOutput(GetParam().arguments, GetParam().extension, scratch), "");
}

INSTANTIATE_TEST_SUITE_P(
    EveryKindOfOutput, ClosedStandardStreams,
    ::testing::Values(ClosedStreamCase{"csv", kLoudRun + "-o {out}", ".csv"},
                      ClosedStreamCase{"snapshot", kLoudRun + "-o {out}", ".nbody"},
                      ClosedStreamCase{"diagnostics", kLoudRun + "--diagnostics {out}", ".csv"}),
    [](const ::testing::TestParamInfo<ClosedStreamCase>& param) { return param.param.name; });

// A report with timings differs run to run: it must still be the report and nothing else.
TEST(ClosedStandardStreams, LeaveTheBenchReportAReport) {
  ScratchFolder scratch("closed-streams-bench");
  for (const std::string& closing : test::closingRedirections()) {
    const auto json = scratch / "b.json";
    ASSERT_EQ(test::runNbodyRedirected("bench --engine cpu --bodies 16 --steps 1 --repetitions 1 --json " +
                                           json.string(), closing), 0) << closing;
    const std::string report = test::readWholeFile(json);
    EXPECT_TRUE(nlohmann::json::accept(report)) << closing << ": " << report.substr(0, 200);
  }
}

TEST(FullDisks, AFailingOutputLeavesNoneOfTheRunsOutputs) {
  ScratchFolder scratch("full-disk");
  const auto state = scratch / "o.csv", json = scratch / "b.json";
  expectCleanFailure(runNbody(kSmallRun + "-o " + state.string() + " --diagnostics /dev/full", scratch), scratch, 1,
                     "cannot write /dev/full: No space left on device");
  EXPECT_FALSE(std::filesystem::exists(state));
  expectCleanFailure(runNbody("bench --engine cpu --bodies 16 --steps 1 --repetitions 1 --json " + json.string() +
                                  " --csv /dev/full",
                              scratch),
                     scratch, 1, "cannot write /dev/full");
  EXPECT_FALSE(std::filesystem::exists(json));
  expectCleanFailure(runNbody(kSmallRun + "-o /dev/full", scratch), scratch, 1, "cannot write /dev/full");
  EXPECT_EQ(namesIn(scratch), std::vector<std::string>{});
  // GADGET HDF5 and GADGET-2 binary, made whole in memory, go the same way.
  for (const std::string name : {"full.hdf5", "full.gadget"}) {
    std::filesystem::create_symlink("/dev/full", scratch / name);
    expectCleanFailure(runNbody(kSmallRun + "-o " + (scratch / name).string(), scratch), scratch, 1,
                       "No space left on device");
    std::filesystem::remove(scratch / name);
  }
}

// Over the file-size limit the kernel sends SIGXFSZ, which used to kill nbody with its temporary
// file left behind; now the write fails and the run ends as any failed write does.
TEST(FullDisks, AFileSizeLimitFailsTheRunCleanly) {
  ScratchFolder scratch("file-size-limit");
  const auto state = scratch / "o.csv";
  const std::string command = "ulimit -f 2; " + std::string(NBODY_EXECUTABLE) + " " +
                              "simulate --engine cpu --bodies 4096 --steps 0 -q -o " + state.string() + " 2>" +
                              (scratch / "stderr.txt").string();
  const int status = std::system(("sh -c '" + command + "'").c_str());
  CommandResult result;
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = test::readWholeFile(scratch / "stderr.txt");
  expectCleanFailure(result, scratch, 1, "File too large");
  EXPECT_EQ(namesIn(scratch), std::vector<std::string>{});
}

// A run long enough to be stopped: snapshots every 10 steps, diagnostics, a final state.
std::vector<std::string> longRun(const ScratchFolder& scratch) {
  return {"simulate", "--engine", "cpu", "--bodies", "1024", "--steps", "1000000", "--snapshot-every", "10",
          "--snapshot-path", (scratch / "s-{step}.nbody").string(), "--diagnostics", (scratch / "d.csv").string(),
          "-o", (scratch / "final.nbody").string(), "-q"};
}

bool firstSnapshotWritten(const ScratchFolder& scratch) {
  return std::filesystem::exists(scratch / "s-000000010.nbody");
}

class StopSignals : public ::testing::TestWithParam<int> {};

TEST_P(StopSignals, EndTheRunAtAStepBoundaryKeepingOnlyTheSnapshotsWritten) {
  ScratchFolder scratch("stop-signal");
  RunningNbody run(longRun(scratch), scratch);
  ASSERT_TRUE(test::waitUntil([&] { return firstSnapshotWritten(scratch); })) << "no snapshot came";
  run.signal(GetParam());
  const CommandResult result = run.wait();
  const std::string signal = GetParam() == SIGINT ? "SIGINT" : "SIGTERM";
  expectCleanFailure(result, scratch, 128 + GetParam(), "stopped by " + signal + " at step ");
  EXPECT_NE(result.err.find("Neither " + (scratch / "final.nbody").string()), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(scratch / "final.nbody"));
  EXPECT_FALSE(std::filesystem::exists(scratch / "d.csv"));
  for (const std::string& name : namesIn(scratch)) {
    ASSERT_EQ(name.rfind("s-", 0), 0u) << name;
    EXPECT_NO_THROW(readSnapshotFile(scratch / name)) << name << " must be whole";
  }
}

INSTANTIATE_TEST_SUITE_P(SigintAndSigterm, StopSignals, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& param) { return param.param == SIGINT ? "Sigint" : "Sigterm"; });

// A second signal ends the run at once, from the handler. The run waits here in the open() of a
// pipe nobody reads (its --diagnostics), which no step boundary ever interrupts, after its -o
// temporary file was made: only the handler can remove it.
TEST(StopSignals, ASecondSignalEndsTheRunAtOnceLeavingNoTemporaryFile) {
  ScratchFolder scratch("second-signal");
  const auto pipe = scratch / "pipe";
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  RunningNbody run({"simulate", "--engine", "cpu", "--bodies", "8", "--diagnostics", pipe.string(), "-o",
                    (scratch / "final.csv").string()},
                   scratch);
  ASSERT_TRUE(test::waitUntil([&] { return !test::temporaryFilesIn(scratch.path()).empty(); }));
  run.signal(SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(::waitpid(run.pid(), nullptr, WNOHANG), 0) << "the first signal waits for a step boundary";
  run.signal(SIGINT);
  const CommandResult result = run.wait(20);
  expectCleanFailure(result, scratch, 130, "stopped at once by SIGINT (a second signal)");
  EXPECT_EQ(namesIn(scratch), std::vector<std::string>{"pipe"});
}

// The signals that end a process without asking nbody to stop, and those of a fault in nbody or
// in a library (a driver short of memory raises SIGSEGV or SIGBUS): nbody used to die at once
// with its temporary files left. It still ends at once, with the signal's own status (a core file
// where the signal makes one), but removes them first and says so. The run waits in the open() of
// a pipe nobody reads, its -o temporary file made.
class EndingSignals : public ::testing::TestWithParam<int> {};

// The name nbody gives a signal: the C library's abbreviation, but SIGIO (not POLL) and the
// real-time ones (which have none).
std::string signalName(int signal) {
  if (signal == SIGIO) return "IO";
  if (signal == SIGRTMIN) return "RTMIN";
  if (signal == SIGRTMAX) return "RTMAX";
  return sigabbrev_np(signal);
}

TEST_P(EndingSignals, EndTheRunAtOnceWithTheSignalsStatusLeavingNoTemporaryFile) {
  ScratchFolder scratch("ending-signal");
  const auto pipe = scratch / "pipe";
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  const struct rlimit noCore {0, RLIM_INFINITY};
  struct rlimit core {};
  ::getrlimit(RLIMIT_CORE, &core);
  const struct rlimit keptCore = core;
  core.rlim_cur = noCore.rlim_cur;
  ::setrlimit(RLIMIT_CORE, &core);  // no core file from the signals that make one
  // Under AddressSanitizer its own handlers would take the faults nbody hands on and end it their way.
  const char* sanitizer = std::getenv("ASAN_OPTIONS");
  const std::string keptSanitizer = sanitizer ? sanitizer : "";
  if (sanitizer)
    ::setenv("ASAN_OPTIONS", (keptSanitizer + ":handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0").c_str(), 1);
  RunningNbody run({"simulate", "--engine", "cpu", "--bodies", "8", "--diagnostics", pipe.string(), "-o",
                    (scratch / "final.csv").string()},
                   scratch);
  if (sanitizer) ::setenv("ASAN_OPTIONS", keptSanitizer.c_str(), 1);
  ::setrlimit(RLIMIT_CORE, &keptCore);
  ASSERT_TRUE(test::waitUntil([&] { return !test::temporaryFilesIn(scratch.path()).empty(); }));
  run.signal(GetParam());
  const CommandResult result = run.wait(20);
  EXPECT_EQ(result.signal, GetParam()) << "exit " << result.exitCode << ": " << result.err;
  const std::vector<std::string> lines = test::linesFromNbody(result.err);
  ASSERT_EQ(lines.size(), 1u) << result.err;
  EXPECT_EQ(lines[0].rfind("nbody: ended by SIG" + signalName(GetParam()), 0), 0u) << lines[0];
  EXPECT_TRUE(lines[0].ends_with("; unfinished outputs removed")) << lines[0];
  EXPECT_EQ(namesIn(scratch), std::vector<std::string>{"pipe"});
}

INSTANTIATE_TEST_SUITE_P(QuitAlarmUserCpuAndFaults, EndingSignals,
                         ::testing::Values(SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGSEGV, SIGBUS, SIGFPE, SIGABRT),
                         [](const auto& param) { return signalName(param.param); });
// The attack of 2026-11-28 (F6): these still ended nbody silently with its temporary files left.
INSTANTIATE_TEST_SUITE_P(TrapIoPowerStackAndRealTime, EndingSignals,
                         ::testing::Values(SIGTRAP, SIGIO, SIGPWR, SIGSTKFLT, SIGRTMIN, SIGRTMAX),
                         [](const auto& param) { return signalName(param.param); });

// A stop that comes while the final state is written (here: 2 million bodies into a CSV, a few
// seconds) used to be swallowed: the file was completed and nbody exited 0. The rule: a stop before
// the outputs are published (renamed into place) abandons them all, exit 128 + n.
TEST(StopSignals, DuringTheFinalWriteAbandonTheOutputs) {
  ScratchFolder scratch("stop-final-write");
  const auto output = scratch / "big.csv";
  RunningNbody run({"simulate", "--engine", "cpu", "--bodies", "2000000", "--steps", "0", "-q", "-o", output.string()},
                   scratch);
  ASSERT_TRUE(test::waitUntil([&] {
    for (const std::string& name : test::temporaryFilesIn(scratch.path()))
      if (std::filesystem::file_size(scratch / name) > 0) return true;
    return false;
  }));
  run.signal(SIGINT);
  const CommandResult result = run.wait(60);
  expectCleanFailure(result, scratch, 130, "stopped by SIGINT while writing the state of step 0. ");
  EXPECT_FALSE(std::filesystem::exists(output));
}

TEST(StopSignals, EndBenchLeavingNoReport) {
  ScratchFolder scratch("stop-bench");
  const auto json = scratch / "b.json";
  RunningNbody run({"bench", "--engine", "cpu", "--bodies", "512", "--seconds", "30", "--json", json.string()},
                   scratch);
  ASSERT_TRUE(test::waitUntil([&] { return test::readWholeFile(scratch / "stderr.txt").find("[1/1]") != std::string::npos; }));
  run.signal(SIGTERM);
  const CommandResult result = run.wait(60);
  EXPECT_EQ(result.exitCode, 143) << result.err;
  EXPECT_NE(result.err.find("stopped by SIGTERM while timing euler on the cpu engine; " + json.string() +
                            " was not written"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(namesIn(scratch), std::vector<std::string>{});
}

struct TwoOutputs {
  std::string name, arguments, expectedInMessage;
};
void PrintTo(const TwoOutputs& two, std::ostream* out) { *out << two.arguments; }

class OnePathTwice : public ::testing::TestWithParam<TwoOutputs> {};

// {d} is the scratch folder. Refused before any work: no file appears.
// {d}/in.nbody is a snapshot of step 0, with a hard link to it and a copy named like snapshot 3.
TEST_P(OnePathTwice, IsAUsageErrorBeforeAnyWork) {
  ScratchFolder scratch("same-path");
  std::filesystem::create_directories(scratch / "sub");
  std::filesystem::create_directory_symlink(scratch.path(), scratch / "here");
  writeTinyPng(scratch / "a.png");
  Snapshot input;
  input.state = findScene("plummer")->generate(8, 1);
  input.settings.emplace().method = "euler";
  writeSnapshotFile(input, scratch / "in.nbody");
  std::filesystem::create_hard_link(scratch / "in.nbody", scratch / "hard.nbody");
  std::filesystem::copy_file(scratch / "in.nbody", scratch / "s-000000003.nbody");
  const std::string inputBytes = test::readWholeFile(scratch / "in.nbody");
  std::string arguments = GetParam().arguments;
  for (auto at = arguments.find("{d}"); at != std::string::npos; at = arguments.find("{d}"))
    arguments.replace(at, 3, scratch.path().string());
  const auto before = namesIn(scratch);
  // Run in the scratch folder, so that relative names land there and are seen if written.
  const auto result = runNbody(arguments, scratch, "cd " + scratch.path().string() + " &&");
  expectCleanFailure(result, scratch, 2, GetParam().expectedInMessage);
  EXPECT_EQ(namesIn(scratch), before);
  EXPECT_EQ(test::readWholeFile(scratch / "a.png").size(), tinyPngBytes().size()) << "the input is untouched";
  EXPECT_EQ(test::readWholeFile(scratch / "in.nbody"), inputBytes) << "the input is untouched";
}

INSTANTIATE_TEST_SUITE_P(
    Attacks, OnePathTwice,
    ::testing::Values(
        TwoOutputs{"OutputAndDiagnostics", kSmallRun + "-o {d}/same.csv --diagnostics {d}/same.csv",
                   "--output and --diagnostics are the same file"},
        TwoOutputs{"ThroughDotDot", kSmallRun + "-o {d}/sub/../same.csv --diagnostics {d}/same.csv",
                   "are the same file"},
        TwoOutputs{"ThroughALink", kSmallRun + "-o {d}/here/same.csv --diagnostics {d}/same.csv", "are the same file"},
        TwoOutputs{"RelativeAndAbsolute", kSmallRun + "-o same.csv --diagnostics ./same.csv", "are the same file"},
        TwoOutputs{"OutputAndASnapshot",
                   "simulate --engine cpu --bodies 8 --steps 20 --snapshot-every 5 --snapshot-path {d}/s-{step}.nbody "
                   "-o {d}/here/s-000000015.nbody",
                   "--output and --snapshot-path's snapshot of step 15 are the same file"},
        TwoOutputs{"DiagnosticsAndASnapshot",
                   "simulate --engine cpu --bodies 8 --steps 20 --snapshot-every 5 --snapshot-path {d}/s-{step}.csv "
                   "-o {d}/o.csv --diagnostics {d}/s-000000020.csv",
                   "--diagnostics and --snapshot-path's snapshot of step 20"},
        TwoOutputs{"BenchJsonAndCsv", "bench --engine cpu --bodies 8 --json {d}/r --csv {d}/sub/../r",
                   "--json and --csv are the same file"},
        TwoOutputs{"CompareDiffOverAnInput", "compare {d}/a.png {d}/a.png --diff {d}/here/a.png",
                   "--diff and A are the same file"},
        TwoOutputs{"ShotOverItsInput", "shot --input {d}/a.png -o {d}/a.png", "--out and --input are the same file"},
        TwoOutputs{"DiagnosticsOverTheInput", "simulate --engine cpu --input {d}/a.png --diagnostics {d}/a.png",
                   "--diagnostics and --input are the same file"},
        // No output may be an input, not even simulate's final state, which used to replace its input
        // once the run was over: a stop or failure in between left nothing to run again from.
        TwoOutputs{"FinalStateOverItsInput", "simulate --engine cpu --steps 1 --input {d}/in.nbody -o {d}/here/in.nbody",
                   "--output and --input are the same file"},
        TwoOutputs{"FinalStateOverAHardLinkOfItsInput",
                   "simulate --engine cpu --steps 1 --input {d}/in.nbody -o {d}/hard.nbody",
                   "--output and --input are the same file"},
        TwoOutputs{"FinalStateOverItsInputReadThroughStandardInput",
                   "simulate --engine cpu --steps 1 --input /dev/stdin -o {d}/in.nbody < {d}/in.nbody",
                   "--output and --input are the same file"},
        TwoOutputs{"ASnapshotOverTheInput",
                   "simulate --engine cpu --steps 5 --input {d}/s-000000003.nbody --snapshot-every 1 "
                   "--snapshot-path {d}/sub/../s-{step}.nbody -o {d}/o.nbody",
                   "--input and --snapshot-path's snapshot of step 3 are the same file"},
        TwoOutputs{"ShotOverAHardLinkOfItsInput", "shot --input {d}/in.nbody -o {d}/hard.nbody",
                   "--out and --input are the same file"},
        // An HDF5 series keeps an XDMF index beside it, rewritten after every snapshot.
        TwoOutputs{"OutputOverTheXdmfIndex",
                   "simulate --engine cpu --bodies 8 --steps 4 --snapshot-every 2 --snapshot-path {d}/s-{step}.hdf5 "
                   "-o {d}/here/s.xmf",
                   "--output and --snapshot-path's XDMF index are the same file"},
        TwoOutputs{"DiagnosticsOverTheXdmfIndex",
                   "simulate --engine cpu --bodies 8 --steps 4 --snapshot-every 2 --snapshot-path {d}/f-{step}/s.hdf5 "
                   "-o {d}/o.csv --diagnostics {d}/sub/../s.xmf",
                   "--diagnostics and --snapshot-path's XDMF index are the same file"}),
    [](const auto& param) { return param.param.name; });

// Every snapshot of a run is probed before the first step: a folder missing for one of them, or a
// folder where a later one would go, used to end the run halfway (the last snapshot alone was
// probed). {d} is the scratch folder; nothing may be left in it.
struct SnapshotPlan {
  std::string name, arguments, folderToMake, expectedInMessage;
};
void PrintTo(const SnapshotPlan& plan, std::ostream* out) { *out << plan.arguments; }

class SnapshotPaths : public ::testing::TestWithParam<SnapshotPlan> {};

TEST_P(SnapshotPaths, AreProbedBeforeTheFirstStep) {
  ScratchFolder scratch("snapshot-paths");
  if (!GetParam().folderToMake.empty()) std::filesystem::create_directories(scratch / GetParam().folderToMake);
  std::string arguments = GetParam().arguments;
  for (auto at = arguments.find("{d}"); at != std::string::npos; at = arguments.find("{d}"))
    arguments.replace(at, 3, scratch.path().string());
  const auto before = namesIn(scratch);
  expectCleanFailure(runNbody(arguments, scratch), scratch, 2, GetParam().expectedInMessage);
  EXPECT_EQ(namesIn(scratch), before) << "no snapshot before the refusal";
}

const std::string kSnapshotRun = "simulate --engine cpu --bodies 8 --steps 10 -q -o {d}/o.nbody --snapshot-every 1 ";

INSTANTIATE_TEST_SUITE_P(
    Attacks, SnapshotPaths,
    ::testing::Values(
        SnapshotPlan{"AMissingFolder", kSnapshotRun + "--snapshot-path {d}/missing/s-{step}.nbody", "",
                     "--snapshot-path: the snapshot of step 1 cannot be written: its folder"},
        SnapshotPlan{"AFolderAtALaterSnapshotsName", kSnapshotRun + "--snapshot-path {d}/s-{step}.nbody",
                     "s-000000007.nbody", "the snapshot of step 7 cannot be written: "},
        SnapshotPlan{"AFolderOfEachSnapshotMissingForALaterOne", kSnapshotRun + "--snapshot-path {d}/f-{step}/s.nbody",
                     "f-000000001", "the snapshot of step 2 cannot be written: its folder"},
        SnapshotPlan{"AFolderAtTheXdmfIndexsName", kSnapshotRun + "--snapshot-path {d}/s-{step}.hdf5", "s.xmf",
                     "s.xmf cannot be written: it is a folder"}),
    [](const auto& param) { return param.param.name; });

// A reader that goes away (`nbody bench --json /dev/stdout --csv b.csv | head -c 10`) is its own
// choice, not a failure to keep what was written: the pipe's output ends with one line (exit 1),
// and the run's other outputs are still written. SIGPIPE used to ask for a stop (exit 141), or the
// broken pipe abandoned every output.
struct PipeReaderGone {
  std::string name, arguments, stillWritten;
  std::size_t lines;  // in what is still written
};
void PrintTo(const PipeReaderGone& gone, std::ostream* out) { *out << gone.arguments; }

class ReaderGoneAway : public ::testing::TestWithParam<PipeReaderGone> {};

TEST_P(ReaderGoneAway, EndsThePipesOutputOnlyWithOneLine) {
  ScratchFolder scratch("reader-gone");
  std::vector<std::string> words;
  std::istringstream split(GetParam().arguments);
  for (std::string word; split >> word;) words.push_back(word == "{written}" ? (scratch / GetParam().stillWritten).string() : word);
  const CommandResult result = test::runNbodyIntoAClosedPipe(words, scratch);
  expectCleanFailure(result, scratch, 1, "cannot write /dev/stdout: Broken pipe");
  EXPECT_EQ(test::lineCount(test::readWholeFile(scratch / GetParam().stillWritten)), GetParam().lines);
}

INSTANTIATE_TEST_SUITE_P(
    Attacks, ReaderGoneAway,
    ::testing::Values(PipeReaderGone{"BenchJson", "bench --engine cpu --bodies 16 --steps 1 --repetitions 1 --json "
                                                  "/dev/stdout --csv {written}", "b.csv", 2},
                      PipeReaderGone{"SimulateDiagnostics", kLoudRun + "--diagnostics /dev/stdout -o {written}", "o.csv", 65},
                      PipeReaderGone{"SimulateFinalState", kLoudRun + "--diagnostics {written} -o /dev/stdout", "d.csv", 3}),
    [](const auto& param) { return param.param.name; });

// Two outputs into the one pipe standard output is, however it is named: the bytes of both would
// mix. A terminal may take several (what is written there is shown, not kept).
class OneStreamTwice : public ::testing::TestWithParam<std::string> {};

TEST_P(OneStreamTwice, IsAUsageErrorBeforeAnyWork) {
  ScratchFolder scratch("one-stream-twice");
  std::vector<std::string> words;
  std::istringstream split(GetParam());
  for (std::string word; split >> word;) words.push_back(word);
  const CommandResult result = test::runNbodyIntoAClosedPipe(words, scratch);
  expectCleanFailure(result, scratch, 2, "are the same file");
}

INSTANTIATE_TEST_SUITE_P(
    Attacks, OneStreamTwice,
    ::testing::Values("bench --engine cpu --bodies 8 --json /dev/stdout --csv /dev/fd/1",
                      "bench --engine cpu --bodies 8 --json /proc/self/fd/1 --csv /dev/stdout",
                      kSmallRun + "-o /dev/fd/1 --diagnostics /proc/self/fd/1"),
    [](const auto& param) { return "Case" + std::to_string(param.index); });

// A working folder longer than PATH_MAX (4096 bytes) has no absolute name that system calls take;
// other programs work there with relative names, and so must nbody (it failed with "File name too
// long": its temporary files were named by absolute path). The script removes the deep folders
// itself (a path that long is beyond std::filesystem).
TEST(LongPaths, AWorkingFolderLongerThanPathMaxWorks) {
  ScratchFolder scratch("long-cwd");
  const std::string deep(250, 'd'), where = scratch.path().string();
  const std::string script = "cd " + where + " && for k in $(seq 1 18); do mkdir " + deep + " && cd -P " + deep +
                             " || exit 1; done; pwd -P | wc -c >" + where + "/length; " + NBODY_EXECUTABLE + " " +
                             kSmallRun + "-o out.nbody --diagnostics d.csv --snapshot-every 1 --snapshot-path " +
                             "s{step}.nbody 2>" + where + "/stderr.txt; echo $? >" + where + "/rc; ls >" + where +
                             "/names; cd " + where + " && rm -rf " + deep;
  ASSERT_EQ(std::system(("bash -c '" + script + "'").c_str()), 0);
  EXPECT_GT(std::stoul(test::readWholeFile(scratch / "length")), std::size_t(PATH_MAX));
  EXPECT_EQ(test::readWholeFile(scratch / "rc"), "0\n") << test::readWholeFile(scratch / "stderr.txt");
  EXPECT_EQ(test::readWholeFile(scratch / "names"), "d.csv\nout.nbody\ns000000001.nbody\ns000000002.nbody\ns000000003.nbody\n");
}

// Run as root over another user's file, the replacement was root's (the temporary file's owner):
// it now keeps the file's owner, group and mode, as editors and install do, in an ordinary folder
// and in a sticky one (/tmp). {f} is the folder, {f}/theirs the other user's file.
struct OwnedFile {
  std::string name, arguments;
  mode_t folderMode;
};
void PrintTo(const OwnedFile& owned, std::ostream* out) { *out << owned.arguments; }

class OtherUsersFiles : public ::testing::TestWithParam<OwnedFile> {};

TEST_P(OtherUsersFiles, KeepTheirOwnerGroupAndModeWhenReplacedAsRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root replaces another user's file";
  ScratchFolder scratch("other-users");
  const auto folder = scratch / "f", theirs = folder / "theirs";
  std::filesystem::create_directory(folder);
  ASSERT_EQ(::chmod(folder.c_str(), GetParam().folderMode), 0);
  std::ofstream(theirs) << "theirs\n";
  constexpr uid_t kOwner = 12345;
  constexpr gid_t kGroup = 23456;
  ASSERT_EQ(::chown(theirs.c_str(), kOwner, kGroup), 0);
  ASSERT_EQ(::chmod(theirs.c_str(), 0640), 0);
  std::string arguments = GetParam().arguments;
  for (auto at = arguments.find("{f}"); at != std::string::npos; at = arguments.find("{f}"))
    arguments.replace(at, 3, folder.string());
  const CommandResult result = runNbody(arguments, scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(test::readWholeFile(theirs), "theirs\n") << "replaced";
  struct stat replaced;
  ASSERT_EQ(::stat(theirs.c_str(), &replaced), 0);
  EXPECT_EQ(replaced.st_uid, kOwner);
  EXPECT_EQ(replaced.st_gid, kGroup);
  EXPECT_EQ(replaced.st_mode & 07777, 0640u);
}

INSTANTIATE_TEST_SUITE_P(
    OrdinaryAndStickyFolders, OtherUsersFiles,
    ::testing::Values(OwnedFile{"FinalStateInAnOrdinaryFolder", kSmallRun + "-o {f}/theirs", 0755},
                      OwnedFile{"FinalStateInAStickyFolder", kSmallRun + "-o {f}/theirs", 01777},
                      OwnedFile{"DiagnosticsInAStickyFolder", kSmallRun + "-o {f}/mine.csv --diagnostics {f}/theirs", 01777},
                      OwnedFile{"BenchReportInAnOrdinaryFolder",
                                "bench --engine cpu --bodies 8 --steps 1 --repetitions 1 --json {f}/theirs", 0755}),
    [](const auto& param) { return param.param.name; });

// What is a usage error for one option or command is one for every other: an engine setting given
// twice (--set was the one option that took it), a number through the one reader (no hex, no
// blanks, "too small" where the type would make it 0), --seed with a file to start from (it was
// ignored), a bench that would time nothing (an empty table, exit 0). {d}/in.csv is a small state.
class UsageEverywhereTheSame : public ::testing::TestWithParam<test::AttackCase> {};

TEST_P(UsageEverywhereTheSame, IsAUsageErrorBeforeAnyWork) {
  ScratchFolder scratch("usage");
  std::ofstream(scratch / "in.csv") << "x,y,z,mass,vx,vy,vz\n0,0,0,1,0,0,0\n1,0,0,1,0,1,0\n";
  test::expectUsageErrorBeforeAnyWork(GetParam(), scratch);
}

INSTANTIATE_TEST_SUITE_P(
    Options, UsageEverywhereTheSame,
    ::testing::Values(
        test::AttackCase{"SetGivenTwice", kSmallRun + "--set slices=2 --set slices=4 -o {d}/o.csv",
                         "--set slices: given 2 times; give it once"},
        test::AttackCase{"SeedWithAnInput", "simulate --engine cpu --input {d}/in.csv --seed 3 -o {d}/o.csv",
                         "--seed excludes --input"},
        test::AttackCase{"SeedWithAStateToLoad", "run --load {d}/in.csv --seed 3", "--seed excludes --load"},
        test::AttackCase{"ADoubleThatUnderflows", kSmallRun + "--dt 1e-400 -o {d}/o.csv",
                         "--dt: '1e-400' is too small: a double would make it 0"},
        test::AttackCase{"AFloatThatUnderflows", "shot --point-size 1e-50 -o {d}/s.png",
                         "--point-size: '1e-50' is too small: a float32 would make it 0"},
        test::AttackCase{"ACameraFieldThatUnderflows", "shot --camera 1e-50,0,1 -o {d}/s.png", "'1e-50' is too small"},
        test::AttackCase{"ACameraFieldInHex", "shot --camera 0x10,0,1 -o {d}/s.png", "'0x10' is not a number"},
        test::AttackCase{"AColourRangeWithABlank", "shot --color-range ' 1,2' -o {d}/s.png", "' 1' is not a number"},
        test::AttackCase{"ABenchThatWouldTimeNothing", "bench --engine cpu --readback sync --json {d}/b.json",
                         "--readback sync: the cpu engine keeps its state on the CPU and reads nothing back"},
        test::AttackCase{"AnUnknownReadback", "bench --engine cpu --readback none,fast --json {d}/b.json",
                         "--readback: fast is not one of none, sync, async"},
        test::AttackCase{"AScreenshotAndARecordingThatAreOneFile", "run --screenshot {d}/same --record {d}/./same",
                         "--screenshot and --record are the same file"}),
    [](const auto& param) { return param.param.name; });

// kepler and figure-eight have 2 and 3 bodies whatever --bodies says: the capacity was checked
// for --bodies (a billion bodies "need about 322 GB"), and bench said N = 4096 while it timed 2.
TEST(Scenes, WithAFixedBodyCountIgnoreBodiesAndSaySo) {
  ScratchFolder scratch("fixed-scenes");
  for (const auto& [scene, bodies] : {std::pair{"kepler", 2u}, std::pair{"figure-eight", 3u}}) {
    const auto output = scratch / (std::string(scene) + ".csv");
    const CommandResult result = runNbody(std::string("simulate --engine cpu --scene ") + scene +
                                              " --bodies 1073741824 --steps 1 -q -o " + output.string(),
                                          scratch);
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_EQ(test::lineCount(test::readWholeFile(output)), 1u + bodies);
  }
  const CommandResult bench =
      runNbody("bench --engine cpu --scene kepler --bodies 4096 --steps 1 --repetitions 1", scratch);
  ASSERT_EQ(bench.exitCode, 0) << bench.err;
  EXPECT_NE(bench.out.find("N = 2 (kepler has 2 bodies whatever --bodies says)"), std::string::npos) << bench.out;
}

// Messages that did not say what was wrong, made clear: each case makes what it needs in the
// scratch folder {d} and returns the shell words put before nbody ("skip" where this machine
// cannot make it); the one line must name the cause. The window's, bench's and accuracy's own
// cases are elsewhere (Scenes, the GL tier).
struct UnclearCase {
  std::string name;
  std::function<std::string(const ScratchFolder&)> setup;
  std::string arguments;
  int exitCode;
  std::string expectedInMessage;
};
void PrintTo(const UnclearCase& unclear, std::ostream* out) { *out << unclear.arguments; }

std::string nothing(const ScratchFolder&) { return ""; }
std::function<std::string(const ScratchFolder&)> file(const std::string& name, const std::string& bytes) {
  return [name, bytes](const ScratchFolder& scratch) {
    std::ofstream(scratch / name, std::ios::binary) << bytes;
    return std::string();
  };
}
class UnclearMessages : public ::testing::TestWithParam<UnclearCase> {};

TEST_P(UnclearMessages, SayWhatIsWrong) {
  ScratchFolder scratch("unclear");
  const std::string prefix = GetParam().setup(scratch);
  if (prefix == "skip") GTEST_SKIP() << "this machine cannot make the case";
  const CommandResult result = runNbody(test::withFolder(GetParam().arguments, scratch), scratch, prefix);
  expectCleanFailure(result, scratch, GetParam().exitCode, GetParam().expectedInMessage);
}

const std::string kCsvHeader = "x,y,z,mass,vx,vy,vz";
const std::string kCsvRow = "0,0,0,1,0,0,0";

std::string utf16(const std::string& ascii) {
  std::string wide = "\xff\xfe";
  for (char c : ascii) wide += std::string{c, '\0'};
  return wide;
}

std::string tipsyPrefix(std::size_t bytes) {
  return test::TipsyWriter(false).write(0.5, {{1.0f, 1, 2, 3, 0, 0, 0}}, {}, {}).substr(0, bytes);
}

INSTANTIATE_TEST_SUITE_P(
    Messages, UnclearMessages,
    ::testing::Values(
        UnclearCase{"ACsvWithAByteOrderMark", file("ic.csv", "\xef\xbb\xbf" + kCsvHeader + "\n" + kCsvRow + "\n"),
                    "simulate --engine cpu --input {d}/ic.csv", 1,
                    "ic.csv:1: the file starts with a UTF-8 byte-order mark (EF BB BF)"},
        UnclearCase{"ACsvInUtf16", file("ic.csv", utf16(kCsvHeader + "\n" + kCsvRow + "\n")),
                    "simulate --engine cpu --input {d}/ic.csv", 1, "the file is UTF-16"},
        UnclearCase{"ACsvWithCarriageReturnsAlone", file("ic.csv", kCsvHeader + "\r" + kCsvRow + "\r"),
                    "simulate --engine cpu --input {d}/ic.csv", 1, "the lines end in a carriage return alone"},
        UnclearCase{"ATruncatedTipsyHeader", file("galaxy.dat", tipsyPrefix(20)),
                    "simulate --engine cpu --input {d}/galaxy.dat", 1,
                    "galaxy.dat: truncated: 20 bytes, shorter than the 32-byte TIPSY header"},
        UnclearCase{"ATruncatedTipsy", file("galaxy.dat", tipsyPrefix(50)), "simulate --engine cpu --input {d}/galaxy.dat",
                    1, "galaxy.dat: truncated: the TIPSY header lists"},
        UnclearCase{"NoPictureAtAll", file("a.png", "hello\n"), "compare {d}/a.png {d}/a.png", 2,
                    "a.png: it is not a PNG picture"},
        UnclearCase{"APictureCutShort",
                    [](const ScratchFolder& scratch) {
                      std::ofstream(scratch / "a.png", std::ios::binary) << tinyPngBytes().substr(0, 40);
                      return std::string();
                    },
                    "compare {d}/a.png {d}/a.png", 2, "a.png: it is cut short: its 40 bytes end before its last chunk"},
        UnclearCase{"AnInputThatIsALoopOfLinks",
                    [](const ScratchFolder& scratch) {
                      std::filesystem::create_symlink("loop", scratch / "loop");
                      return std::string();
                    },
                    "simulate --engine cpu --input {d}/loop", 2, "loop: it is a loop of symbolic links"},
        UnclearCase{"AnOutputThatIsALoopOfLinks",
                    [](const ScratchFolder& scratch) {
                      std::filesystem::create_symlink("loop", scratch / "loop");
                      return std::string();
                    },
                    kSmallRun + "-o {d}/loop", 1, "it is a loop of symbolic links"},
        UnclearCase{"AnInputThatIsASocket",
                    [](const ScratchFolder& scratch) {
                      const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
                      sockaddr_un address{};
                      address.sun_family = AF_UNIX;
                      std::snprintf(address.sun_path, sizeof address.sun_path, "%s", (scratch / "sock").c_str());
                      const bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
                      ::close(fd);
                      return bound ? std::string() : std::string("skip");
                    },
                    "simulate --engine cpu --input {d}/sock", 1, "sock: it is a socket, not a file or a pipe"},
        UnclearCase{"AnInputInAFolderThatCannotBeSearched",
                    [](const ScratchFolder& scratch) {
                      std::filesystem::create_directory(scratch / "locked");
                      std::ofstream(scratch / "locked" / "ic.csv") << kCsvHeader << "\n" << kCsvRow << "\n";
                      ::chmod((scratch / "locked").c_str(), 0700);
                      return test::asNobody(scratch);
                    },
                    "simulate --engine cpu --input {d}/locked/ic.csv -o {d}/o.csv", 2,
                    "locked on the way cannot be searched (Permission denied)"},
        UnclearCase{"AnOutputInAReadOnlyFolder",
                    [](const ScratchFolder& scratch) {
                      std::filesystem::create_directory(scratch / "read-only");
                      ::chmod((scratch / "read-only").c_str(), 0555);
                      return test::asNobody(scratch);
                    },
                    kSmallRun + "-o {d}/read-only/o.csv", 1, "read-only cannot be written (Permission denied)"},
        // AddressSanitizer's runtime needs more descriptors and threads of its own.
        UnclearCase{"TooManyOpenFiles",
                    [](const ScratchFolder&) {
                      // nbody inherits what this process holds without FD_CLOEXEC (ctest's pipes too),
                      // and a descriptor must be below the limit: one free number below it, which
                      // the loader's libraries and then the first output take; the second finds none.
                      int firstFree = 3;
                      while (::fcntl(firstFree, F_GETFD) >= 0 && !(::fcntl(firstFree, F_GETFD) & FD_CLOEXEC)) ++firstFree;
                      return test::underAddressSanitizer()
                                 ? std::string("skip")
                                 : "prlimit --nofile=" + std::to_string(firstFree + 1) + " --";
                    },
                    kSmallRun + "-o {d}/o.csv --diagnostics {d}/d.csv", 1,
                    "Too many open files: the open-file limit (ulimit -n) is "},
        UnclearCase{"ThreadsTheProcessLimitKeepsFromStarting",
                    [](const ScratchFolder& scratch) {
                      const std::string nobody = test::asNobody(scratch);
                      if (test::underAddressSanitizer()) return std::string("skip");
                      return nobody == "skip" ? nobody : nobody + "prlimit --nproc=1 --";
                    },
                    "simulate --engine cpu --bodies 4096 --steps 1 -q -o {d}/o.csv", 1,
                    "a thread could not be started: Resource temporarily unavailable: the process limit"},
        UnclearCase{"MoreBodiesThanTheAddressSpaceLimitLeaves",
                    [](const ScratchFolder&) { return std::string(test::underAddressSanitizer() ? "skip" : "ulimit -v 2000000;"); },
                    "simulate --engine cpu --bodies 20000000 --steps 0 -o {d}/o.csv", 1,
                    "20000000 bodies need about 5.6 GiB; the address-space limit (ulimit -v) is 1.9 GiB"},
        UnclearCase{"AnInputLargerThanTheMemoryLeft",
                    [](const ScratchFolder& scratch) {
                      std::filesystem::resize_file((std::ofstream(scratch / "big.csv"), scratch / "big.csv"), 3LL << 30);
                      return std::string(test::underAddressSanitizer() ? "skip" : "ulimit -v 1000000;");
                    },
                    "simulate --engine cpu --input {d}/big.csv -o {d}/o.csv", 1,
                    "big.csv: its 3.0 GiB do not fit in the memory left (the address-space limit (ulimit -v)"},
        // Read whole (600 MiB), then copied for the CSV reader: the copy finds no room.
        UnclearCase{"MemoryThatCannotBeHad",
                    [](const ScratchFolder& scratch) {
                      std::filesystem::resize_file((std::ofstream(scratch / "big.csv"), scratch / "big.csv"), 600LL << 20);
                      return std::string(test::underAddressSanitizer() ? "skip" : "ulimit -v 1000000;");
                    },
                    "simulate --engine cpu --input {d}/big.csv -o {d}/o.csv", 1,
                    "out of memory: a request for 600 MiB could not be met (the address-space limit (ulimit -v) is 977 MiB"},
        UnclearCase{"AHugeNumberInAMessage", nothing, "record --seconds 1e300 --fps 1 -o {d}/m.mp4", 2,
                    "--seconds 1e+300 at --fps 1 makes more than 10^8 frames"}),
    [](const auto& param) { return param.param.name; });

// File names in progress lines are shown as in error lines: the bytes a terminal acts on as \xNN.
TEST(Messages, NeverEchoRawBytesOfAFileNameInProgressLines) {
  ScratchFolder scratch("progress-names");
  const std::string name = (scratch / "o").string() + "\x1b[31m.csv";
  const CommandResult result = runNbody(kLoudRun + "-o \"$(printf '" + (scratch / "o").string() + "\\033[31m.csv')\"", scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_TRUE(std::filesystem::exists(name));
  EXPECT_EQ(result.err.find('\x1b'), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("wrote " + (scratch / "o").string() + "\\x1b[31m.csv"), std::string::npos) << result.err;
}

// The report of a context that could not be made has a line for each platform tried (it was one
// line with \x0a where the breaks were).
TEST(Messages, TheContextReportHasALineForEachPlatform) {
  ScratchFolder scratch("context-report");
  const CommandResult result = runNbody("simulate --bodies 8 -o " + (scratch / "o.csv").string(), scratch,
                                        "__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent/vendor.json");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("nbody: error: no OpenGL 4.5 core context could be made. Tried:\n"), std::string::npos)
      << result.err;
  for (const char* platform : {"device", "surfaceless", "default"})
    EXPECT_NE(result.err.find("\n  EGL " + std::string(platform) + " platform: "), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("\\x0a"), std::string::npos) << result.err;
  EXPECT_EQ(namesIn(scratch), std::vector<std::string>{});
}

// A snapshot whose counters are at the edge: refused when its step cannot continue, and never
// made to count past what a snapshot holds.
std::filesystem::path snapshotAtStep(const ScratchFolder& scratch, long long step) {
  Snapshot snapshot;
  snapshot.state = findScene("plummer")->generate(8, 1);
  snapshot.step = 0;
  snapshot.settings.emplace().method = "euler";
  std::ostringstream bytes;
  writeBinarySnapshot(snapshot, bytes);
  std::string file = bytes.str();
  for (int k = 0; k < 8; ++k) file[32 + std::size_t(k)] = char((std::uint64_t(step) >> (8 * k)) & 0xff);
  const std::uint64_t sum = fnv1a64(std::string_view(file).substr(0, file.size() - 8));
  for (int k = 0; k < 8; ++k) file[file.size() - 8 + std::size_t(k)] = char((sum >> (8 * k)) & 0xff);
  const auto path = scratch / ("at-" + std::to_string(step) + ".nbody");
  std::ofstream(path, std::ios::binary) << file;
  return path;
}

TEST(ExtremeCounters, ASnapshotThatCannotContinueIsRefusedAtOnce) {
  ScratchFolder scratch("extreme-steps");
  for (const long long step : {std::numeric_limits<long long>::max(), kLargestStep + 1}) {
    const auto input = snapshotAtStep(scratch, step);
    const auto result = runNbody("simulate --engine cpu --steps 1 -q -o " + (scratch / "o.nbody").string() +
                                     " --input " + input.string(),
                                 scratch);
    expectCleanFailure(result, scratch, 1, "step " + std::to_string(step) + " is beyond the largest");
    EXPECT_FALSE(std::filesystem::exists(scratch / "o.nbody"));
  }
}

TEST(ExtremeCounters, AStepCountUpToTheLargestStepIsExactAndBeyondIsRefused) {
  ScratchFolder scratch("extreme-sum");
  const auto input = snapshotAtStep(scratch, kLargestStep - 3);
  const auto output = scratch / "o.nbody";
  ASSERT_EQ(runNbody("simulate --engine cpu --steps 3 --snapshot-every 2 --snapshot-path " +
                         (scratch / "s-{step}.nbody").string() + " -q -o " + output.string() + " --input " +
                         input.string(),
                     scratch)
                .exitCode,
            0);
  EXPECT_EQ(readSnapshotFile(output).step, kLargestStep);
  EXPECT_EQ(readSnapshotFile(scratch / ("s-" + std::to_string(kLargestStep - 2) + ".nbody")).step, kLargestStep - 2);
  const auto result = runNbody("simulate --engine cpu --steps 4 -q -o " + output.string() + ".2 --input " +
                                   input.string(),
                               scratch);
  expectCleanFailure(result, scratch, 1, "goes past step " + std::to_string(kLargestStep));
}

// G = 1e308 makes every force overflow: the state is infinite after the first step. No snapshot,
// diagnostics row or final state of it may be written, and the message names the last step found
// finite and the first found not.
TEST(NonFiniteStates, AreNeverWrittenAndTheMessageNamesTheSteps) {
  ScratchFolder scratch("non-finite");
  const std::string run = "simulate --engine cpu --bodies 64 --gravity 1e308 --steps 10 -o " +
                          (scratch / "final.csv").string() + " ";
  expectCleanFailure(runNbody(run + "--snapshot-every 2 --snapshot-path " + (scratch / "s-{step}.nbody").string(),
                              scratch),
                     scratch, 1, "non-finite between step 0 (the last found finite) and step 2: body ");
  EXPECT_EQ(namesIn(scratch), std::vector<std::string>{}) << "no snapshot of a non-finite state";
  expectCleanFailure(runNbody(run + "--diagnostics " + (scratch / "d.csv").string() + " --diagnostics-every 1", scratch),
                     scratch, 1, "non-finite between step 0 (the last found finite) and step 1: body ");
  EXPECT_EQ(namesIn(scratch), std::vector<std::string>{});
}

// A time step so large that the simulated time overflows while the state (one body, at rest)
// stays finite: the snapshot would hold an infinite time no loader accepts.
TEST(NonFiniteStates, ATimeThatOverflowsIsNotWritten) {
  ScratchFolder scratch("non-finite-time");
  std::ofstream(scratch / "one.csv") << "x,y,z,mass,vx,vy,vz\n0,0,0,1,0,0,0\n";
  const auto result = runNbody("simulate --engine cpu --input " + (scratch / "one.csv").string() +
                                   " --dt 1e308 --steps 3 -o " + (scratch / "o.nbody").string(),
                               scratch);
  expectCleanFailure(result, scratch, 1, "the simulated time is no longer finite");
  EXPECT_FALSE(std::filesystem::exists(scratch / "o.nbody"));
}

// Bytes a terminal acts on (an escape sequence that clears the screen, a carriage return) never
// reach it from a file: they are shown as \xNN.
TEST(Messages, NeverEchoRawBytesFromAFile) {
  ScratchFolder scratch("raw-bytes");
  std::ofstream(scratch / "ic.csv") << "x,y,z,mass,vx,vy,vz\n1,2,\x1b[2J\r\x07,1,0,0,0\n";
  const auto csv = runNbody("simulate --engine cpu --input " + (scratch / "ic.csv").string(), scratch);
  expectCleanFailure(csv, scratch, 1, "column z is not a number: '\\x1b[2J\\x0d\\x07'");
  Snapshot snapshot;
  snapshot.state = findScene("plummer")->generate(4, 1);
  snapshot.settings.emplace().method = "\x1b]0;owned\x07";
  writeSnapshotFile(snapshot, scratch / "odd.nbody");
  const auto method = runNbody("simulate --engine cpu --input " + (scratch / "odd.nbody").string(), scratch);
  expectCleanFailure(method, scratch, 1, "method '\\x1b]0;owned\\x07'");
  for (const std::string& err : {csv.err, method.err}) EXPECT_EQ(err.find('\x1b'), std::string::npos) << err;
}

TEST(Messages, AnEmptyOutputPathIsAUsageErrorBeforeTheRun) {
  ScratchFolder scratch("empty-path");
  for (const std::string& arguments :
       std::vector<std::string>{kSmallRun + "-o ''", kSmallRun + "--diagnostics ''", "bench --engine cpu --json ''",
                                "shot -o ''", kSmallRun + "-o " + scratch.path().string() + "/"})
    expectCleanFailure(runNbody(arguments, scratch), scratch, 2, "");
  EXPECT_EQ(namesIn(scratch), std::vector<std::string>{});
}

// A PNG's header may announce far more pixels than its bytes hold (stb would allocate them all
// before finding the data short); the size is checked first. Grey pixels, so that stb's own limit
// (2^30 bytes of decoded channels) does not stop it first.
TEST(CraftedPictures, AHugeAnnouncedSizeIsRefusedBeforeDecoding) {
  ScratchFolder scratch("png-bomb");
  std::string png = tinyPngBytes();
  // IHDR: width and height (big-endian) at bytes 16..23, then bit depth and colour type (0: grey).
  // The CRC no longer matches (stb checks none; nbody does, after the size): the size is said first.
  for (int k = 0; k < 4; ++k) png[16 + std::size_t(k)] = char((20000u >> (8 * (3 - k))) & 0xff);
  for (int k = 0; k < 4; ++k) png[20 + std::size_t(k)] = char((20000u >> (8 * (3 - k))) & 0xff);
  png[25] = 0;
  std::ofstream(scratch / "bomb.png", std::ios::binary) << png;
  writeTinyPng(scratch / "a.png");
  const auto result = runNbody("compare " + (scratch / "a.png").string() + " " + (scratch / "bomb.png").string(), scratch);
  expectCleanFailure(result, scratch, 2, "20000 x 20000 pixels, more than");  // compare's "cannot read" is 2
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;  // its shadow memory needs terabytes of address space
#else
constexpr bool kAddressSanitizer = false;
#endif

// GADGET headers that claim 2^31 - 1 bodies of a type, in files of a few hundred bytes: refused
// from the blocks' lengths (binary) or the datasets' shapes (HDF5) before anything of that size
// is allocated; under a 1 GB address-space limit (but with AddressSanitizer) the line is the same.
TEST(CraftedGadgetFiles, AHugeClaimedCountIsRefusedBeforeAnyAllocation) {
  ScratchFolder scratch("gadget-bomb");
  const auto small = "simulate --engine cpu --scene galaxies --bodies 8 --steps 0 -q -o ";
  ASSERT_EQ(runNbody(small + (scratch / "g.gadget").string(), scratch).exitCode, 0);
  ASSERT_EQ(runNbody(small + (scratch / "g.hdf5").string(), scratch).exitCode, 0);
  // The binary header's npart[1] at byte 4 + 4; the HDF5 NumPart arrays wherever [0, 4, 4, 0, 0, 0] is.
  std::string binary = test::readWholeFile(scratch / "g.gadget"), hdf5 = test::readWholeFile(scratch / "g.hdf5");
  for (int k = 0; k < 4; ++k) binary[8 + std::size_t(k)] = char(k == 3 ? 0x7f : 0xff);
  const std::string counts{"\0\0\0\0\x04\0\0\0\x04\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 24};
  std::size_t patched = 0;
  for (auto at = hdf5.find(counts); at != std::string::npos; at = hdf5.find(counts, at + 1), ++patched)
    hdf5.replace(at + 4, 4, "\xff\xff\xff\x7f");
  ASSERT_GE(patched, 2u);
  std::ofstream(scratch / "bomb.gadget", std::ios::binary) << binary;
  std::ofstream(scratch / "bomb.hdf5", std::ios::binary) << hdf5;
  for (const auto& [file, expected] : {std::pair<std::string, std::string>{"bomb.gadget", "not 6442450953 values"},
                                       {"bomb.hdf5", "is not 2147483647 x 3 values"}}) {
    const std::string input = (scratch / file).string();
    const std::string command = std::string(kAddressSanitizer ? "" : "ulimit -v 1000000; ") + NBODY_EXECUTABLE +
                                " simulate --engine cpu --steps 0 -q --input " + input + " -o " +
                                (scratch / "o.csv").string() + " 2>" + (scratch / "stderr.txt").string();
    const int status = std::system(("sh -c '" + command + "'").c_str());
    CommandResult result;
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.err = test::readWholeFile(scratch / "stderr.txt");
    expectCleanFailure(result, scratch, 1, input + ": ");
    EXPECT_NE(result.err.find(expected), std::string::npos) << result.err;
  }
  EXPECT_FALSE(std::filesystem::exists(scratch / "o.csv"));
}

// A device as an input never ends (/dev/zero): reading it whole filled the memory until the
// kernel killed nbody, its temporary output left behind. Refused before a byte is read.
TEST(Inputs, ADeviceIsRefusedBeforeAByteIsRead) {
  ScratchFolder scratch("device-input");
  // compare's trouble is exit 2 (1 says the pictures differ).
  for (const auto& [arguments, exitCode] : std::vector<std::pair<std::vector<std::string>, int>>{
           {{"simulate", "--engine", "cpu", "--input", "/dev/zero", "-o", (scratch / "o.csv").string()}, 1},
           {{"compare", "/dev/zero", "/dev/zero", "--diff", (scratch / "d.png").string()}, 2}}) {
    RunningNbody run(arguments, scratch);
    expectCleanFailure(run.wait(30), scratch, exitCode, "cannot read /dev/zero: it is a device");
  }
  EXPECT_EQ(namesIn(scratch), std::vector<std::string>{});
}

// Several runs writing one file at once: each writes a temporary file of its own, and the file
// ends up whole, from one of them.
TEST(ConcurrentRuns, WritingOneFileLeaveItWhole) {
  ScratchFolder scratch("concurrent");
  const auto output = scratch / "same.csv";
  std::vector<std::unique_ptr<RunningNbody>> runs;
  for (int k = 0; k < 4; ++k) {
    runs.push_back(std::make_unique<RunningNbody>(
        std::vector<std::string>{"simulate", "--engine", "cpu", "--bodies", "2000", "--seed", std::to_string(k),
                                 "--steps", "1", "-q", "-o", output.string()},
        scratch));
  }
  for (auto& run : runs) EXPECT_EQ(run->wait().exitCode, 0);
  const std::string written = test::readWholeFile(output);
  EXPECT_EQ(test::lineCount(written), 2001u);
  EXPECT_EQ(test::temporaryFilesIn(scratch.path()), std::vector<std::string>{});
}

}  // namespace
}  // namespace nbody
