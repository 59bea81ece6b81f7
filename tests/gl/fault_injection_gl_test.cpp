// The fault-injection suite's attacks on the commands that draw (shot, record): they need an
// OpenGL context. The classes are the CPU tier's (tests/cpu/fault_injection_test.cpp): states
// that turn non-finite, signals in the middle of long work. docs/robustness.md lists them.

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <functional>

#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "io/snapshot.h"
#include "physics/scenes.h"
#include "support/cli_runner.h"
#include "support/fault_injection.h"

namespace nbody {
namespace {

using test::CommandResult;
using test::expectCleanFailure;
using test::namesIn;
using test::RunningNbody;
using test::ScratchFolder;

// The words of a command line where {d} stands for the scratch folder.
std::vector<std::string> words(const std::string& arguments, const ScratchFolder& scratch) {
  std::vector<std::string> split;
  std::istringstream in(test::withFolder(arguments, scratch));
  for (std::string word; in >> word;) split.push_back(word);
  return split;
}

// G = 1e308 makes every force overflow: the state is infinite after the first step. record used to
// film it and exit 0; now every command that draws refuses it as simulate does, naming the steps.
class NonFiniteStatesWhenDrawn : public ::testing::TestWithParam<test::AttackCase> {};

TEST_P(NonFiniteStatesWhenDrawn, AreNeverDrawnIntoAFile) {
  ScratchFolder scratch("non-finite-drawn");
  const CommandResult result =
      test::runNbody(test::withFolder(GetParam().arguments, scratch), scratch);
  expectCleanFailure(result, scratch, 1, GetParam().expectedInMessage);
  EXPECT_EQ(namesIn(scratch), std::vector<std::string>{});
}

const std::string kSmallPicture = "--bodies 64 --width 32 --height 32 --gravity 1e308 -q ";
const std::string kNonFinite =
    "the state became non-finite between step 0 (the last found finite) and step ";

INSTANTIATE_TEST_SUITE_P(
    EveryCommandThatDraws, NonFiniteStatesWhenDrawn,
    ::testing::Values(
        test::AttackCase{"Record", "record " + kSmallPicture + "--frames 3 --out {d}/m.mp4",
                         kNonFinite + "2: body "},
        test::AttackCase{
            "RecordManyStepsPerFrame",
            "record " + kSmallPicture + "--frames 2 --steps-per-frame 300 --out {d}/m.mp4",
            kNonFinite + "100: body "},
        test::AttackCase{"RecordWithTrails",
                         "record " + kSmallPicture + "--frames 3 --trails 0.1 --out {d}/m.mp4",
                         kNonFinite + "2: body "},
        test::AttackCase{"Shot", "shot " + kSmallPicture + "--steps 3 --out {d}/s.png",
                         kNonFinite + "3: body "},
        test::AttackCase{"ShotWithTrails",
                         "shot " + kSmallPicture + "--steps 3 --trails 0.1 --out {d}/s.png",
                         kNonFinite + "3: body "}),
    [](const auto& param) { return param.param.name; });

// Long work that used to look at no stop request: shot --trails drew every step without one, and
// record made a frame's steps in one go. Each must end within a few seconds of the signal (a chunk
// of about a quarter second, a step of the CPU engine at N = 4096), exit 128 + n, one line, no
// file.
struct LongWork {
  std::string name, arguments;
  int signal;
};
void PrintTo(const LongWork& work, std::ostream* out) { *out << work.arguments; }

class StopsInsideLongWork : public ::testing::TestWithParam<LongWork> {};

TEST_P(StopsInsideLongWork, EndItWithinAStepLeavingNoFile) {
  ScratchFolder scratch("stop-long-work");
  RunningNbody run(words(GetParam().arguments, scratch), scratch);
  // reportView's line comes once the first state is drawn, before the steps.
  ASSERT_TRUE(test::waitUntil([&] {
    return test::readWholeFile(scratch / "stderr.txt").find("camera yaw") != std::string::npos;
  }));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  run.signal(GetParam().signal);
  const CommandResult result = run.wait(15);
  expectCleanFailure(result, scratch, 128 + GetParam().signal,
                     "stopped by SIG" + std::string(sigabbrev_np(GetParam().signal)));
  EXPECT_EQ(namesIn(scratch), std::vector<std::string>{});
}

const std::string kSlowCpuRun = "--engine cpu --bodies 4096 --width 64 --height 64 ";

INSTANTIATE_TEST_SUITE_P(
    ShotAndRecord, StopsInsideLongWork,
    ::testing::Values(
        LongWork{"ShotWithTrails",
                 "shot " + kSlowCpuRun + "--trails 0.1 --steps 100000 --out {d}/s.png", SIGINT},
        LongWork{"RecordManyStepsPerFrame",
                 "record " + kSlowCpuRun + "--frames 3 --steps-per-frame 100000 --out {d}/m.mp4",
                 SIGTERM},
        LongWork{"RecordWithTrails",
                 "record " + kSlowCpuRun +
                     "--frames 3 --trails 0.1 --steps-per-frame 100000 --out {d}/m.mp4",
                 SIGHUP}),
    [](const auto& param) { return param.param.name; });

// An engine's number setting (the tree's theta) goes through the one reader of numbers, as every
// option does: std::stod took hex and leading blanks. The CPU tier holds the other cases of the
// family (tests/cpu/fault_injection_test.cpp).
class UsageEverywhereTheSame : public ::testing::TestWithParam<test::AttackCase> {};

TEST_P(UsageEverywhereTheSame, IsAUsageErrorBeforeAnyWork) {
  ScratchFolder scratch("usage-gl");
  test::expectUsageErrorBeforeAnyWork(GetParam(), scratch);
}

INSTANTIATE_TEST_SUITE_P(
    EngineSettings, UsageEverywhereTheSame,
    ::testing::Values(
        test::AttackCase{"ANumberInHex",
                         "simulate --engine tree --bodies 8 --set theta=0x1p-1 -o {d}/o.csv",
                         "theta 0x1p-1 is not one of"},
        test::AttackCase{"ANumberWithABlank",
                         "simulate --engine tree --bodies 8 --set 'theta= 0.5' -o {d}/o.csv",
                         "theta  0.5 is not one of"}),
    [](const auto& param) { return param.param.name; });

// A machine that cannot give the OpenGL driver what it needs: llvmpipe crashed (SIGSEGV in its
// shader compiler under a low address-space limit; SIGBUS when its shader cache's index landed on
// a full file system) or hung (waiting for threads a process limit kept from starting), and a
// tiny stack crashed nbody. Each is now one line naming the cause, checked before the context is
// made; a cache that cannot be used is turned off with a note, and the run goes on. `setup` makes
// what the case needs in the scratch folder {d} and returns the shell words put before nbody.
struct Environment {
  std::string name;
  std::function<std::string(const ScratchFolder&)> setup;
  int exitCode;
  std::string expectedInMessage;
};
void PrintTo(const Environment& environment, std::ostream* out) { *out << environment.name; }

// A file system of 64 KiB, filled, mounted at {d}/full for the test's life; nothing where mounting
// is not allowed here.
std::string fullFileSystem(const ScratchFolder& scratch) {
  const auto full = scratch / "full";
  std::filesystem::create_directory(full);
  if (std::system(("mount -t tmpfs -o size=64k tmpfs " + full.string() + " 2>/dev/null").c_str()) !=
      0)
    return {};
  std::ofstream(full / "fill") << std::string(1 << 17, 'x');
  return full.string();
}

class EnvironmentFailures : public ::testing::TestWithParam<Environment> {};

TEST_P(EnvironmentFailures, AreOneLineNamingTheCauseNeverACrashOrAHang) {
  ScratchFolder scratch("environment");
  const std::string prefix = GetParam().setup(scratch);
  if (prefix == "skip") GTEST_SKIP() << "this machine cannot make the environment (see the case)";
  const auto output = scratch / "o.csv";
  const CommandResult result =
      test::runNbody("simulate --engine fragment --bodies 64 --steps 2 -q -o " + output.string(),
                     scratch, prefix + " timeout -s KILL 120");
  std::system(("umount " + (scratch / "full").string() + " 2>/dev/null").c_str());
  if (GetParam().exitCode != 0) {
    expectCleanFailure(result, scratch, GetParam().exitCode, GetParam().expectedInMessage);
    EXPECT_FALSE(std::filesystem::exists(output));
    return;
  }
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(test::linesFromNbody(result.err).size(), 1u) << result.err;
  EXPECT_NE(result.err.find(GetParam().expectedInMessage), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("Failed to create"), std::string::npos)
      << "Mesa's own line: " << result.err;
  EXPECT_EQ(test::lineCount(test::readWholeFile(output)), 65u);
}

INSTANTIATE_TEST_SUITE_P(
    LimitsAndShaderCaches, EnvironmentFailures,
    ::testing::Values(
        Environment{
            "ALowAddressSpaceLimit",
            [](const ScratchFolder&) -> std::string {
              // AddressSanitizer's shadow memory fits under no address-space limit.
              return test::underAddressSanitizer() ? "skip" : "ulimit -v 400000;";
            },
            1, "the OpenGL driver could not start: the address-space limit (ulimit -v) is 391 MiB"},
        Environment{"AProcessLimitTooLowForTheDriversThreads",
                    [](const ScratchFolder& scratch) -> std::string {
                      const std::string nobody = test::asNobody(scratch);
                      if (test::underAddressSanitizer())
                        return std::string("skip");  // its runtime's threads
                      return nobody == "skip" ? nobody : nobody + "prlimit --nproc=2 --";
                    },
                    1, "the process limit (ulimit -u, threads included) is 2"},
        Environment{"ATinyStack",
                    [](const ScratchFolder&) -> std::string { return "ulimit -s 32;"; }, 1,
                    "the stack limit (ulimit -s) is 32.0 KiB, below the 256 KiB nbody needs"},
        Environment{"AFullShaderCacheFolder",
                    [](const ScratchFolder& scratch) -> std::string {
                      const std::string full = fullFileSystem(scratch);
                      return full.empty() ? "skip" : "MESA_SHADER_CACHE_DIR=" + full;
                    },
                    0, "nbody: note: OpenGL's shader cache is off: "},
        Environment{"AShaderCacheFolderThatCannotBeWritten",
                    [](const ScratchFolder& scratch) -> std::string {
                      const std::string nobody = test::asNobody(scratch);
                      std::filesystem::create_directory(scratch / "cache");
                      ::chmod((scratch / "cache").c_str(), 0555);
                      return nobody == "skip"
                                 ? nobody
                                 : nobody +
                                       "env MESA_SHADER_CACHE_DIR=" + (scratch / "cache").string();
                    },
                    0, "cache cannot be written (Permission denied)"}),
    [](const auto& param) { return param.param.name; });

// A tree's potential against a reference of 0 (one body): the relative error is undefined, and
// accuracy printed "-nan".
TEST(Messages, AccuracySaysARelativeErrorAgainstZeroIsUndefined) {
  ScratchFolder scratch("accuracy-zero");
  std::ofstream(scratch / "one.csv") << "x,y,z,mass,vx,vy,vz\n0,0,0,1,0,0,0\n";
  const CommandResult result = test::runNbody(
      "accuracy --engine tree -q --input " + (scratch / "one.csv").string(), scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(
      result.out.find("potential energy: relative error undefined (the reference potential is 0)"),
      std::string::npos)
      << result.out;
  EXPECT_EQ(result.out.find("nan"), std::string::npos) << result.out;
}

// Every JSON report records the settings it measured with. accuracy --json wrote the command
// line's softening and G even when the state came from a snapshot with its own, and neither report
// said the dt. {d}/in.nbody holds a snapshot with softening 0.05, G 2, dt 0.003 and rk4.
struct Report {
  std::string name, arguments;
  std::function<const nlohmann::json&(const nlohmann::json&)>
      settingsOf;  // where the report keeps them
  double softening, gravity, dt;
  std::string method;
};
void PrintTo(const Report& report, std::ostream* out) { *out << report.arguments; }

class ReportsSayWhatWasMeasured : public ::testing::TestWithParam<Report> {};

TEST_P(ReportsSayWhatWasMeasured, TheSofteningGravityMethodAndStepUsed) {
  ScratchFolder scratch("report-settings");
  Snapshot input;
  input.state = findScene("plummer")->generate(64, 2);
  input.settings = RunSettings{"rk4", StepParams{0.003, 0.05, 2.0}, 2};
  writeSnapshotFile(input, scratch / "in.nbody");
  const CommandResult result =
      test::runNbody(test::withFolder(GetParam().arguments, scratch), scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const nlohmann::json report = nlohmann::json::parse(test::readWholeFile(scratch / "r.json"));
  const nlohmann::json& settings = GetParam().settingsOf(report);
  EXPECT_EQ(settings.value("softening", -1.0), GetParam().softening) << settings;
  EXPECT_EQ(settings.value("gravity", -1.0), GetParam().gravity) << settings;
  EXPECT_EQ(settings.value("dt", -1.0), GetParam().dt) << settings;
  EXPECT_EQ(settings.value("method", std::string()), GetParam().method) << settings;
}

const nlohmann::json& itself(const nlohmann::json& report) { return report; }
const nlohmann::json& firstResult(const nlohmann::json& report) {
  return report.at("results").at(0);
}

INSTANTIATE_TEST_SUITE_P(
    AccuracyAndBench, ReportsSayWhatWasMeasured,
    ::testing::Values(
        // accuracy times Euler steps of the snapshot's dt, with its softening and G.
        Report{"AccuracyFromASnapshot",
               "accuracy --engine cpu -q --input {d}/in.nbody --json {d}/r.json", itself, 0.05, 2.0,
               0.003, "euler"},
        Report{"AccuracyFromASnapshotWithASofteningGiven",
               "accuracy --engine cpu -q --input {d}/in.nbody --softening 0.2 --json {d}/r.json",
               itself, 0.2, 2.0, 0.003, "euler"},
        Report{"Bench",
               "bench --engine cpu --bodies 64 --steps 1 --repetitions 1 --method rk2 --dt 0.004 "
               "--softening 0.03 -G 3 "
               "--json {d}/r.json",
               firstResult, 0.03, 3.0, 0.004, "rk2"}),
    [](const auto& param) { return param.param.name; });

}  // namespace
}  // namespace nbody

namespace nbody {
namespace {

// NBODY_DUMP_PROGRAMS wrote its files with std::ofstream, following links planted on their
// predictable names (a hash of the sources) over the file they point to, and failed silently
// into a missing folder. They go through the output layer now: the link is refused and its target
// untouched, a missing folder fails the run with one line, and a good folder gets a binary and
// what it was made of for each stage kernel.
TEST(DumpedPrograms, GoThroughTheOutputLayer) {
  test::ScratchFolder scratch("dump-programs");
  const std::string run = "simulate --bodies 256 --steps 2 -q -o " + (scratch / "o.csv").string();
  std::filesystem::create_directory(scratch / "dump");
  ASSERT_EQ(
      test::runNbody(run, scratch, "NBODY_DUMP_PROGRAMS=" + (scratch / "dump").string()).exitCode,
      0);
  std::vector<std::filesystem::path> dumped;
  for (const auto& entry : std::filesystem::directory_iterator(scratch / "dump"))
    dumped.push_back(entry.path());
  ASSERT_GE(dumped.size(), 2u);
  for (const auto& file : dumped) {
    if (file.extension() != ".key") continue;
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(file).replace_extension(".bin")))
        << file;
    EXPECT_NE(test::readWholeFile(file).find(".glsl;"), std::string::npos) << file;
  }
  std::ofstream(scratch / "victim.txt") << "precious";
  for (const auto& file : dumped) {
    std::filesystem::remove(file);
    std::filesystem::create_symlink(scratch / "victim.txt", file);
  }
  std::filesystem::remove(scratch / "o.csv");
  test::expectCleanFailure(
      test::runNbody(run, scratch, "NBODY_DUMP_PROGRAMS=" + (scratch / "dump").string()), scratch,
      1,
      "it is a symbolic link (to " + (scratch / "victim.txt").string() +
          ") that leads to a regular file");
  EXPECT_EQ(test::readWholeFile(scratch / "victim.txt"), "precious");
  test::expectCleanFailure(
      test::runNbody(run, scratch, "NBODY_DUMP_PROGRAMS=" + (scratch / "missing").string()),
      scratch, 1, "cannot write " + (scratch / "missing").string() + "/");
  // A pipe at one of the names held the run in open() past a stop signal.
  for (const auto& file : dumped) {
    std::filesystem::remove(file);
    ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
  }
  test::expectCleanFailure(
      test::runNbody(run, scratch,
                     "timeout 20 env NBODY_DUMP_PROGRAMS=" + (scratch / "dump").string()),
      scratch, 1, "NBODY_DUMP_PROGRAMS writes regular files, and this is none");
  EXPECT_FALSE(std::filesystem::exists(scratch / "o.csv"));
}

}  // namespace
}  // namespace nbody
