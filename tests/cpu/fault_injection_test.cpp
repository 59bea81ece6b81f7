// Attacks on the real nbody, as a hostile user or a hostile machine would make them: links
// planted where nbody writes, /dev/stdout redirected to a file, full devices and file-size
// limits, signals in the middle of a run, one path given twice, concurrent runs (snapshots with
// extreme counters, non-finite states and unclear messages: bad_input_test.cpp). Every case names
// what must hold afterwards: no temporary file, no partial output, no file written through a link,
// one line saying what happened. docs/robustness.md lists them.

#include <gtest/gtest.h>

#include <climits>
#include <csignal>
#include <fstream>
#include <functional>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
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
using test::kLoudRun;
using test::kSmallRun;
using test::namesIn;
using test::runNbody;
using test::RunningNbody;
using test::ScratchFolder;
using test::tinyPngBytes;
using test::writeTinyPng;

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
  EXPECT_TRUE(std::filesystem::is_symlink(link))
      << "the link must not be replaced by a regular file";
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
  const std::string command = std::string(NBODY_EXECUTABLE) + " " + kSmallRun + "-o " +
                              link.string() + " >> " + (scratch / "log.txt").string() + " 2>" +
                              (scratch / "stderr.txt").string();
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
void PrintTo(const ClosedStreamCase& streamCase, std::ostream* out) {
  *out << streamCase.arguments;
}

class ClosedStandardStreams : public ::testing::TestWithParam<ClosedStreamCase> {};

TEST_P(ClosedStandardStreams, LeaveTheOutputsAsWithTheStreamsOpen) {
  ScratchFolder scratch("closed-streams-" + GetParam().name);
  EXPECT_EQ(
      test::closedStreamsThatChangeTheOutput(GetParam().arguments, GetParam().extension, scratch),
      "");
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
    ASSERT_EQ(
        test::runNbodyRedirected(
            "bench --engine cpu --bodies 16 --steps 1 --repetitions 1 --json " + json.string(),
            closing),
        0)
        << closing;
    const std::string report = test::readWholeFile(json);
    EXPECT_TRUE(nlohmann::json::accept(report)) << closing << ": " << report.substr(0, 200);
  }
}

TEST(FullDisks, AFailingOutputLeavesNoneOfTheRunsOutputs) {
  ScratchFolder scratch("full-disk");
  const auto state = scratch / "o.csv", json = scratch / "b.json";
  expectCleanFailure(
      runNbody(kSmallRun + "-o " + state.string() + " --diagnostics /dev/full", scratch), scratch,
      1, "cannot write /dev/full: No space left on device");
  EXPECT_FALSE(std::filesystem::exists(state));
  expectCleanFailure(runNbody("bench --engine cpu --bodies 16 --steps 1 --repetitions 1 --json " +
                                  json.string() + " --csv /dev/full",
                              scratch),
                     scratch, 1, "cannot write /dev/full");
  EXPECT_FALSE(std::filesystem::exists(json));
  expectCleanFailure(runNbody(kSmallRun + "-o /dev/full", scratch), scratch, 1,
                     "cannot write /dev/full");
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
                              "simulate --engine cpu --bodies 4096 --steps 0 -q -o " +
                              state.string() + " 2>" + (scratch / "stderr.txt").string();
  const int status = std::system(("sh -c '" + command + "'").c_str());
  CommandResult result;
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = test::readWholeFile(scratch / "stderr.txt");
  expectCleanFailure(result, scratch, 1, "File too large");
  EXPECT_EQ(namesIn(scratch), std::vector<std::string>{});
}

// A run long enough to be stopped: snapshots every 10 steps, diagnostics, a final state.
std::vector<std::string> longRun(const ScratchFolder& scratch) {
  return {"simulate",
          "--engine",
          "cpu",
          "--bodies",
          "1024",
          "--steps",
          "1000000",
          "--snapshot-every",
          "10",
          "--snapshot-path",
          (scratch / "s-{step}.nbody").string(),
          "--diagnostics",
          (scratch / "d.csv").string(),
          "-o",
          (scratch / "final.nbody").string(),
          "-q"};
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
  EXPECT_NE(result.err.find("Neither " + (scratch / "final.nbody").string()), std::string::npos)
      << result.err;
  EXPECT_FALSE(std::filesystem::exists(scratch / "final.nbody"));
  EXPECT_FALSE(std::filesystem::exists(scratch / "d.csv"));
  for (const std::string& name : namesIn(scratch)) {
    ASSERT_EQ(name.rfind("s-", 0), 0u) << name;
    EXPECT_NO_THROW(readSnapshotFile(scratch / name)) << name << " must be whole";
  }
}

INSTANTIATE_TEST_SUITE_P(SigintAndSigterm, StopSignals, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& param) {
                           return param.param == SIGINT ? "Sigint" : "Sigterm";
                         });

// A second signal ends the run at once, from the handler. The run waits here in the open() of a
// pipe nobody reads (its --diagnostics), which no step boundary ever interrupts, after its -o
// temporary file was made: only the handler can remove it.
TEST(StopSignals, ASecondSignalEndsTheRunAtOnceLeavingNoTemporaryFile) {
  ScratchFolder scratch("second-signal");
  const auto pipe = scratch / "pipe";
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  RunningNbody run({"simulate", "--engine", "cpu", "--bodies", "8", "--diagnostics", pipe.string(),
                    "-o", (scratch / "final.csv").string()},
                   scratch);
  ASSERT_TRUE(test::waitUntil([&] { return !test::temporaryFilesIn(scratch.path()).empty(); }));
  run.signal(SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(::waitpid(run.pid(), nullptr, WNOHANG), 0)
      << "the first signal waits for a step boundary";
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
  const struct rlimit noCore { 0, RLIM_INFINITY };
  struct rlimit core {};
  ::getrlimit(RLIMIT_CORE, &core);
  const struct rlimit keptCore = core;
  core.rlim_cur = noCore.rlim_cur;
  ::setrlimit(RLIMIT_CORE, &core);  // no core file from the signals that make one
  // Under AddressSanitizer its own handlers would take the faults nbody hands on and end it their
  // way.
  const char* sanitizer = std::getenv("ASAN_OPTIONS");
  const std::string keptSanitizer = sanitizer ? sanitizer : "";
  if (sanitizer)
    ::setenv(
        "ASAN_OPTIONS",
        (keptSanitizer + ":handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0").c_str(),
        1);
  RunningNbody run({"simulate", "--engine", "cpu", "--bodies", "8", "--diagnostics", pipe.string(),
                    "-o", (scratch / "final.csv").string()},
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
                         ::testing::Values(SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGSEGV,
                                           SIGBUS, SIGFPE, SIGABRT),
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
  RunningNbody run({"simulate", "--engine", "cpu", "--bodies", "2000000", "--steps", "0", "-q",
                    "-o", output.string()},
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
  RunningNbody run(
      {"bench", "--engine", "cpu", "--bodies", "512", "--seconds", "30", "--json", json.string()},
      scratch);
  ASSERT_TRUE(test::waitUntil([&] {
    return test::readWholeFile(scratch / "stderr.txt").find("[1/1]") != std::string::npos;
  }));
  run.signal(SIGTERM);
  const CommandResult result = run.wait(60);
  EXPECT_EQ(result.exitCode, 143) << result.err;
  EXPECT_NE(result.err.find("stopped by SIGTERM while timing euler on the cpu engine; " +
                            json.string() + " was not written"),
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
  EXPECT_EQ(test::readWholeFile(scratch / "a.png").size(), tinyPngBytes().size())
      << "the input is untouched";
  EXPECT_EQ(test::readWholeFile(scratch / "in.nbody"), inputBytes) << "the input is untouched";
}

INSTANTIATE_TEST_SUITE_P(
    Attacks, OnePathTwice,
    ::testing::Values(
        TwoOutputs{"OutputAndDiagnostics", kSmallRun + "-o {d}/same.csv --diagnostics {d}/same.csv",
                   "--output and --diagnostics are the same file"},
        TwoOutputs{"ThroughDotDot", kSmallRun + "-o {d}/sub/../same.csv --diagnostics {d}/same.csv",
                   "are the same file"},
        TwoOutputs{"ThroughALink", kSmallRun + "-o {d}/here/same.csv --diagnostics {d}/same.csv",
                   "are the same file"},
        TwoOutputs{"RelativeAndAbsolute", kSmallRun + "-o same.csv --diagnostics ./same.csv",
                   "are the same file"},
        TwoOutputs{"OutputAndASnapshot",
                   "simulate --engine cpu --bodies 8 --steps 20 --snapshot-every 5 --snapshot-path "
                   "{d}/s-{step}.nbody "
                   "-o {d}/here/s-000000015.nbody",
                   "--output and --snapshot-path's snapshot of step 15 are the same file"},
        TwoOutputs{"DiagnosticsAndASnapshot",
                   "simulate --engine cpu --bodies 8 --steps 20 --snapshot-every 5 --snapshot-path "
                   "{d}/s-{step}.csv "
                   "-o {d}/o.csv --diagnostics {d}/s-000000020.csv",
                   "--diagnostics and --snapshot-path's snapshot of step 20"},
        TwoOutputs{"BenchJsonAndCsv",
                   "bench --engine cpu --bodies 8 --json {d}/r --csv {d}/sub/../r",
                   "--json and --csv are the same file"},
        TwoOutputs{"CompareDiffOverAnInput", "compare {d}/a.png {d}/a.png --diff {d}/here/a.png",
                   "--diff and A are the same file"},
        TwoOutputs{"ShotOverItsInput", "shot --input {d}/a.png -o {d}/a.png",
                   "--out and --input are the same file"},
        TwoOutputs{"DiagnosticsOverTheInput",
                   "simulate --engine cpu --input {d}/a.png --diagnostics {d}/a.png",
                   "--diagnostics and --input are the same file"},
        // No output may be an input, not even simulate's final state, which used to replace its
        // input once the run was over: a stop or failure in between left nothing to run again from.
        TwoOutputs{"FinalStateOverItsInput",
                   "simulate --engine cpu --steps 1 --input {d}/in.nbody -o {d}/here/in.nbody",
                   "--output and --input are the same file"},
        TwoOutputs{"FinalStateOverAHardLinkOfItsInput",
                   "simulate --engine cpu --steps 1 --input {d}/in.nbody -o {d}/hard.nbody",
                   "--output and --input are the same file"},
        TwoOutputs{
            "FinalStateOverItsInputReadThroughStandardInput",
            "simulate --engine cpu --steps 1 --input /dev/stdin -o {d}/in.nbody < {d}/in.nbody",
            "--output and --input are the same file"},
        TwoOutputs{
            "ASnapshotOverTheInput",
            "simulate --engine cpu --steps 5 --input {d}/s-000000003.nbody --snapshot-every 1 "
            "--snapshot-path {d}/sub/../s-{step}.nbody -o {d}/o.nbody",
            "--input and --snapshot-path's snapshot of step 3 are the same file"},
        TwoOutputs{"ShotOverAHardLinkOfItsInput", "shot --input {d}/in.nbody -o {d}/hard.nbody",
                   "--out and --input are the same file"},
        // An HDF5 series keeps an XDMF index beside it, rewritten after every snapshot.
        TwoOutputs{"OutputOverTheXdmfIndex",
                   "simulate --engine cpu --bodies 8 --steps 4 --snapshot-every 2 --snapshot-path "
                   "{d}/s-{step}.hdf5 "
                   "-o {d}/here/s.xmf",
                   "--output and --snapshot-path's XDMF index are the same file"},
        TwoOutputs{"DiagnosticsOverTheXdmfIndex",
                   "simulate --engine cpu --bodies 8 --steps 4 --snapshot-every 2 --snapshot-path "
                   "{d}/f-{step}/s.hdf5 "
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
  if (!GetParam().folderToMake.empty())
    std::filesystem::create_directories(scratch / GetParam().folderToMake);
  std::string arguments = GetParam().arguments;
  for (auto at = arguments.find("{d}"); at != std::string::npos; at = arguments.find("{d}"))
    arguments.replace(at, 3, scratch.path().string());
  const auto before = namesIn(scratch);
  expectCleanFailure(runNbody(arguments, scratch), scratch, 2, GetParam().expectedInMessage);
  EXPECT_EQ(namesIn(scratch), before) << "no snapshot before the refusal";
}

const std::string kSnapshotRun =
    "simulate --engine cpu --bodies 8 --steps 10 -q -o {d}/o.nbody --snapshot-every 1 ";

INSTANTIATE_TEST_SUITE_P(
    Attacks, SnapshotPaths,
    ::testing::Values(
        SnapshotPlan{"AMissingFolder", kSnapshotRun + "--snapshot-path {d}/missing/s-{step}.nbody",
                     "", "--snapshot-path: the snapshot of step 1 cannot be written: its folder"},
        SnapshotPlan{"AFolderAtALaterSnapshotsName",
                     kSnapshotRun + "--snapshot-path {d}/s-{step}.nbody", "s-000000007.nbody",
                     "the snapshot of step 7 cannot be written: "},
        SnapshotPlan{"AFolderOfEachSnapshotMissingForALaterOne",
                     kSnapshotRun + "--snapshot-path {d}/f-{step}/s.nbody", "f-000000001",
                     "the snapshot of step 2 cannot be written: its folder"},
        SnapshotPlan{"AFolderAtTheXdmfIndexsName",
                     kSnapshotRun + "--snapshot-path {d}/s-{step}.hdf5", "s.xmf",
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
  for (std::string word; split >> word;)
    words.push_back(word == "{written}" ? (scratch / GetParam().stillWritten).string() : word);
  const CommandResult result = test::runNbodyIntoAClosedPipe(words, scratch);
  expectCleanFailure(result, scratch, 1, "cannot write /dev/stdout: Broken pipe");
  EXPECT_EQ(test::lineCount(test::readWholeFile(scratch / GetParam().stillWritten)),
            GetParam().lines);
}

INSTANTIATE_TEST_SUITE_P(
    Attacks, ReaderGoneAway,
    ::testing::Values(
        PipeReaderGone{"BenchJson",
                       "bench --engine cpu --bodies 16 --steps 1 --repetitions 1 --json "
                       "/dev/stdout --csv {written}",
                       "b.csv", 2},
        PipeReaderGone{"SimulateDiagnostics", kLoudRun + "--diagnostics /dev/stdout -o {written}",
                       "o.csv", 65},
        PipeReaderGone{"SimulateFinalState", kLoudRun + "--diagnostics {written} -o /dev/stdout",
                       "d.csv", 3}),
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
  const std::string script =
      "cd " + where + " && for k in $(seq 1 18); do mkdir " + deep + " && cd -P " + deep +
      " || exit 1; done; pwd -P | wc -c >" + where + "/length; " + NBODY_EXECUTABLE + " " +
      kSmallRun + "-o out.nbody --diagnostics d.csv --snapshot-every 1 --snapshot-path " +
      "s{step}.nbody 2>" + where + "/stderr.txt; echo $? >" + where + "/rc; ls >" + where +
      "/names; cd " + where + " && rm -rf " + deep;
  ASSERT_EQ(std::system(("bash -c '" + script + "'").c_str()), 0);
  EXPECT_GT(std::stoul(test::readWholeFile(scratch / "length")), std::size_t(PATH_MAX));
  EXPECT_EQ(test::readWholeFile(scratch / "rc"), "0\n")
      << test::readWholeFile(scratch / "stderr.txt");
  EXPECT_EQ(test::readWholeFile(scratch / "names"),
            "d.csv\nout.nbody\ns000000001.nbody\ns000000002.nbody\ns000000003.nbody\n");
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
    ::testing::Values(
        OwnedFile{"FinalStateInAnOrdinaryFolder", kSmallRun + "-o {f}/theirs", 0755},
        OwnedFile{"FinalStateInAStickyFolder", kSmallRun + "-o {f}/theirs", 01777},
        OwnedFile{"DiagnosticsInAStickyFolder",
                  kSmallRun + "-o {f}/mine.csv --diagnostics {f}/theirs", 01777},
        OwnedFile{"BenchReportInAnOrdinaryFolder",
                  "bench --engine cpu --bodies 8 --steps 1 --repetitions 1 --json {f}/theirs",
                  0755}),
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
        test::AttackCase{"SeedWithAnInput",
                         "simulate --engine cpu --input {d}/in.csv --seed 3 -o {d}/o.csv",
                         "--seed excludes --input"},
        test::AttackCase{"SeedWithAStateToLoad", "run --load {d}/in.csv --seed 3",
                         "--seed excludes --load"},
        test::AttackCase{"ADoubleThatUnderflows", kSmallRun + "--dt 1e-400 -o {d}/o.csv",
                         "--dt: '1e-400' is too small: a double would make it 0"},
        test::AttackCase{"AFloatThatUnderflows", "shot --point-size 1e-50 -o {d}/s.png",
                         "--point-size: '1e-50' is too small: a float32 would make it 0"},
        test::AttackCase{"ACameraFieldThatUnderflows", "shot --camera 1e-50,0,1 -o {d}/s.png",
                         "'1e-50' is too small"},
        test::AttackCase{"ACameraFieldInHex", "shot --camera 0x10,0,1 -o {d}/s.png",
                         "'0x10' is not a number"},
        test::AttackCase{"AColourRangeWithABlank", "shot --color-range ' 1,2' -o {d}/s.png",
                         "' 1' is not a number"},
        test::AttackCase{
            "ABenchThatWouldTimeNothing", "bench --engine cpu --readback sync --json {d}/b.json",
            "--readback sync: the cpu engine keeps its state on the CPU and reads nothing back"},
        test::AttackCase{"AnUnknownReadback",
                         "bench --engine cpu --readback none,fast --json {d}/b.json",
                         "--readback: fast is not one of none, sync, async"},
        test::AttackCase{"AScreenshotAndARecordingThatAreOneFile",
                         "run --screenshot {d}/same --record {d}/./same",
                         "--screenshot and --record are the same file"}),
    [](const auto& param) { return param.param.name; });

// Several runs writing one file at once: each writes a temporary file of its own, and the file
// ends up whole, from one of them.
TEST(ConcurrentRuns, WritingOneFileLeaveItWhole) {
  ScratchFolder scratch("concurrent");
  const auto output = scratch / "same.csv";
  std::vector<std::unique_ptr<RunningNbody>> runs;
  for (int k = 0; k < 4; ++k) {
    runs.push_back(std::make_unique<RunningNbody>(
        std::vector<std::string>{"simulate", "--engine", "cpu", "--bodies", "2000", "--seed",
                                 std::to_string(k), "--steps", "1", "-q", "-o", output.string()},
        scratch));
  }
  for (auto& run : runs) EXPECT_EQ(run->wait().exitCode, 0);
  const std::string written = test::readWholeFile(output);
  EXPECT_EQ(test::lineCount(written), 2001u);
  EXPECT_EQ(test::temporaryFilesIn(scratch.path()), std::vector<std::string>{});
}

}  // namespace
}  // namespace nbody
