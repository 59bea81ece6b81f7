// simulate with snapshots and diagnostics, as a user runs it on the CPU engine: snapshots every K
// steps, resuming from one with its settings, inputs in every format, diagnostics rows, and the
// runtime errors. (The fragment engine's bit-exact continuation: tests/gl/snapshot_gl_test.cpp.)

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "diagnostics/diagnostics.h"
#include "io/binary_snapshot.h"
#include "io/csv.h"
#include "io/snapshot.h"
#include "physics/scenes.h"
#include "support/cli_runner.h"
#include "support/test_support.h"
#include "support/tipsy_writer.h"

namespace nbody {
namespace {

using test::runNbody;
using test::ScratchFolder;

std::vector<std::string> filesIn(const ScratchFolder& scratch) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(scratch.path()))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::vector<std::string>> csvRows(const std::filesystem::path& path) {
  std::istringstream text(test::readWholeFile(path));
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(text, line);) {
    std::vector<std::string> fields;
    std::istringstream fieldText(line);
    for (std::string field; std::getline(fieldText, field, ',');) fields.push_back(field);
    rows.push_back(fields);
  }
  return rows;
}

const std::string kRk2Run =
    "simulate --engine cpu --scene plummer --bodies 64 --seed 3 --method rk2 "
    "--dt 0.002 --softening 0.05 --gravity 0.7 ";

TEST(SimulateSnapshots, AreWrittenEveryKStepsWithStepTimeAndSettings) {
  ScratchFolder scratch("snapshot-every");
  const auto result = runNbody(kRk2Run + "--steps 10 --snapshot-every 4 --snapshot-path " +
                                   (scratch / "s-{step}.nbody").string() + " -o " +
                                   (scratch / "final.nbody").string(),
                               scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(filesIn(scratch),
            (std::vector<std::string>{"final.nbody", "s-000000004.nbody", "s-000000008.nbody",
                                      "stderr.txt", "stdout.txt"}));
  for (long long step : {4LL, 8LL}) {
    const Snapshot snapshot =
        readSnapshotFile(scratch / ("s-00000000" + std::to_string(step) + ".nbody"));
    EXPECT_EQ(snapshot.step, step);
    EXPECT_DOUBLE_EQ(snapshot.time, 0.002 * double(step));
    ASSERT_TRUE(snapshot.settings);
    EXPECT_EQ(snapshot.settings->method, "rk2");
    EXPECT_EQ(snapshot.settings->step.dt, 0.002);
    EXPECT_EQ(snapshot.settings->step.softening, 0.05);
    EXPECT_EQ(snapshot.settings->step.gravity, 0.7);
    EXPECT_EQ(snapshot.settings->seed, 3u);
    EXPECT_EQ(snapshot.state.size(), 64u);
  }
  EXPECT_EQ(readSnapshotFile(scratch / "final.nbody").step, 10);
}

// The CPU engine keeps its state in double between steps; a snapshot holds the float32 state, so
// the resumed run starts from the state rounded to float32 (a relative 6e-8) and agrees to that.
TEST(SimulateSnapshots, ResumingTakesTheSnapshotsSettingsAndContinues) {
  ScratchFolder scratch("resume-cpu");
  ASSERT_EQ(runNbody(kRk2Run + "--steps 6 --snapshot-every 3 --snapshot-path " +
                         (scratch / "s-{step}.nbody").string() + " -o " +
                         (scratch / "full.nbody").string(),
                     scratch)
                .exitCode,
            0);
  const auto resumed =
      runNbody("simulate --engine cpu --input " + (scratch / "s-000000003.nbody").string() +
                   " --steps 3 -o " + (scratch / "resumed.nbody").string(),
               scratch);
  ASSERT_EQ(resumed.exitCode, 0) << resumed.err;
  const Snapshot full = readSnapshotFile(scratch / "full.nbody");
  const Snapshot again = readSnapshotFile(scratch / "resumed.nbody");
  EXPECT_EQ(again.step, 6);
  EXPECT_DOUBLE_EQ(again.time, full.time);
  EXPECT_EQ(again.settings->method, "rk2");
  EXPECT_EQ(again.settings->step.gravity, 0.7);
  const auto d = test::compareStates(full.state, again.state);
  EXPECT_LT(d.maxPosition, 1e-6);
  EXPECT_LT(d.maxVelocity, 1e-6);
}

TEST(SimulateSnapshots, SettingsGivenOnTheCommandLineWin) {
  ScratchFolder scratch("resume-override");
  ASSERT_EQ(runNbody(kRk2Run + "--steps 2 -o " + (scratch / "a.nbody").string(), scratch).exitCode,
            0);
  ASSERT_EQ(runNbody("simulate --engine cpu --input " + (scratch / "a.nbody").string() +
                         " --method rk4 --dt 0.001 --steps 1 -o " + (scratch / "b.nbody").string(),
                     scratch)
                .exitCode,
            0);
  const Snapshot b = readSnapshotFile(scratch / "b.nbody");
  EXPECT_EQ(b.settings->method, "rk4");
  EXPECT_EQ(b.settings->step.dt, 0.001);
  EXPECT_EQ(b.settings->step.softening, 0.05);  // not given: the snapshot's
  EXPECT_EQ(b.step, 3);
  EXPECT_DOUBLE_EQ(b.time, 0.002 * 2 + 0.001);
}

TEST(SimulateSnapshots, ASnapshotOfAMethodThisBuildLacksNeedsMethod) {
  ScratchFolder scratch("unknown-method");
  Snapshot snapshot;
  snapshot.state = findScene("plummer")->generate(16, 1);
  snapshot.settings.emplace().method = "leapfrog-9";
  writeSnapshotFile(snapshot, scratch / "future.nbody");
  const auto output = scratch / "out.csv";
  const auto refused = runNbody("simulate --engine cpu --input " +
                                    (scratch / "future.nbody").string() + " -o " + output.string(),
                                scratch);
  EXPECT_EQ(refused.exitCode, 1);
  EXPECT_EQ(test::lineCount(refused.err), 1u) << refused.err;
  EXPECT_NE(refused.err.find("method 'leapfrog-9', which this build does not offer"),
            std::string::npos)
      << refused.err;
  EXPECT_FALSE(std::filesystem::exists(output));
  EXPECT_EQ(runNbody("simulate --engine cpu --method euler --input " +
                         (scratch / "future.nbody").string() + " -o " + output.string(),
                     scratch)
                .exitCode,
            0);
}

// In parts (--snapshot-files ranks) one process writes the one part of each snapshot, NAME.0.hdf5,
// which reads back as one file of the same run; other formats than GADGET HDF5 are refused in one
// line before any work.
TEST(SimulateSnapshots, InPartsOneProcessWritesPartZeroWhichReadsAsOneFile) {
  ScratchFolder scratch("parts-one-process");
  auto result = runNbody(kRk2Run + "--steps 4 --snapshot-files ranks --snapshot-every 2 " +
                             "--snapshot-path " + (scratch / "s-{step}.hdf5").string() + " -o " +
                             (scratch / "f.hdf5").string(),
                         scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(filesIn(scratch),
            (std::vector<std::string>{"f.0.hdf5", "s-000000002.0.hdf5", "s-000000004.0.hdf5",
                                      "s.xmf", "stderr.txt", "stdout.txt"}));
  ASSERT_EQ(runNbody(kRk2Run + "--steps 4 -o " + (scratch / "one.hdf5").string(), scratch).exitCode,
            0);
  EXPECT_TRUE(test::sameBits(readSnapshotFile(scratch / "f.0.hdf5").state,
                             readSnapshotFile(scratch / "one.hdf5").state));
  result =
      runNbody(kRk2Run + "--snapshot-files ranks -o " + (scratch / "out.csv").string(), scratch);
  EXPECT_NE(result.exitCode, 0);
  EXPECT_EQ(test::lineCount(result.err), 1u) << result.err;
  EXPECT_NE(result.err.find("--snapshot-files ranks writes GADGET HDF5 files"), std::string::npos)
      << result.err;
  EXPECT_FALSE(std::filesystem::exists(scratch / "out.csv"));
}

// A series in parts resumed at one of its steps (from a .nbody snapshot: GADGET files keep no step)
// keeps the earlier snapshots in its XDMF index (their first parts are there) and lists each once,
// by the snapshot's name.
TEST(SimulateSnapshots, InPartsAResumedSeriesKeepsItsEarlierSnapshotsInTheIndex) {
  ScratchFolder scratch("parts-resumed-index");
  const std::string series = " --snapshot-files ranks --snapshot-every 2 --snapshot-path " +
                             (scratch / "s-{step}.hdf5").string();
  ASSERT_EQ(
      runNbody(kRk2Run + "--steps 4" + series + " -o " + (scratch / "f.hdf5").string(), scratch)
          .exitCode,
      0);
  ASSERT_EQ(
      runNbody(kRk2Run + "--steps 2 -o " + (scratch / "half.nbody").string(), scratch).exitCode, 0);
  const auto result =
      runNbody("simulate --engine cpu --input " + (scratch / "half.nbody").string() + " --steps 2" +
                   series + " -o " + (scratch / "g.hdf5").string(),
               scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const std::string index = test::readWholeFile(scratch / "s.xmf");
  for (const std::string step : {"000000002", "000000004"}) {
    const std::string block = "Grid Name=\"s-" + step + ".hdf5\"";
    const auto at = index.find(block);
    EXPECT_NE(at, std::string::npos) << step << "\n" << index;
    EXPECT_EQ(index.find(block, at + 1), std::string::npos) << step;
    EXPECT_NE(index.find("s-" + step + ".0.hdf5:/PartType1/Coordinates"), std::string::npos);
  }
}

TEST(SimulateSnapshots, ADamagedSnapshotIsARuntimeErrorNamingTheProblem) {
  ScratchFolder scratch("damaged-input");
  ASSERT_EQ(
      runNbody(kRk2Run + "--steps 0 -o " + (scratch / "good.nbody").string(), scratch).exitCode, 0);
  std::string bytes = test::readWholeFile(scratch / "good.nbody");
  bytes[200] ^= 0x40;
  std::ofstream(scratch / "bad.nbody", std::ios::binary) << bytes;
  const auto output = scratch / "out.csv";
  const auto result = runNbody("simulate --engine cpu --input " + (scratch / "bad.nbody").string() +
                                   " -o " + output.string(),
                               scratch);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(test::lineCount(result.err), 1u) << result.err;
  EXPECT_NE(result.err.find("bad.nbody: checksum mismatch"), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(output));
}

TEST(SimulateSnapshots, ImportsTipsyAndWritesItsStateAsCsv) {
  ScratchFolder scratch("tipsy-cli");
  std::ofstream(scratch / "in.std", std::ios::binary) << test::TipsyWriter(true).write(
      2.5, {}, {{0.5f, 1, 0, 0, 0, 0.5f, 0}, {0.5f, -1, 0, 0, 0, -0.5f, 0}}, {});
  ASSERT_EQ(runNbody("simulate --engine cpu --input " + (scratch / "in.std").string() +
                         " --steps 0 -o " + (scratch / "out.csv").string(),
                     scratch)
                .exitCode,
            0);
  EXPECT_EQ(test::readWholeFile(scratch / "out.csv"),
            "x,y,z,mass,vx,vy,vz\n1,0,0,0.5,0,0.5,0\n-1,0,0,0.5,0,-0.5,0\n");
}

TEST(SimulateDiagnostics, WritesARowAtTheStartEveryKStepsAndAtTheEnd) {
  ScratchFolder scratch("diagnostics-csv");
  const auto result =
      runNbody(kRk2Run + "--steps 10 --diagnostics " + (scratch / "d.csv").string() +
                   " --diagnostics-every 4 -o " + (scratch / "final.csv").string(),
               scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const auto rows = csvRows(scratch / "d.csv");
  ASSERT_EQ(rows.size(), 5u);
  const std::vector<std::string>& header = rows[0];
  EXPECT_EQ(header.size(), 18u);
  EXPECT_EQ(header[0], "step");
  EXPECT_EQ(header[7], "relative_energy_error");
  std::vector<std::string> steps;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    ASSERT_EQ(rows[r].size(), header.size());
    steps.push_back(rows[r][0]);
    EXPECT_EQ(rows[r][2], "cpu");
    EXPECT_EQ(rows[r][3], "rk2");
  }
  EXPECT_EQ(steps, (std::vector<std::string>{"0", "4", "8", "10"}));
  EXPECT_EQ(rows[1][7], "0");
  EXPECT_EQ(std::stod(rows[4][1]), 0.02);  // time = 10 dt
  // The first row is the scene's diagnostics to the last bit (shortest round-trip text).
  StepParams params;
  params.softening = 0.05;
  params.gravity = 0.7;
  const Diagnostics first = computeDiagnostics(findScene("plummer")->generate(64, 3), params);
  EXPECT_EQ(std::stod(rows[1][4]), first.kinetic);
  EXPECT_EQ(std::stod(rows[1][5]), first.potential);
  // The last row measures the CPU engine's double state; the final CSV holds it rounded to
  // float32, which moves the energies by ~1e-7 relative.
  const Diagnostics last =
      computeDiagnostics(readStateCsvFile((scratch / "final.csv").string()), params);
  EXPECT_NEAR(std::stod(rows[4][4]), last.kinetic, 1e-6 * last.kinetic);
  EXPECT_NEAR(std::stod(rows[4][5]), last.potential, 1e-6 * std::abs(last.potential));
  const double total0 = std::stod(rows[1][6]), total = std::stod(rows[4][6]);
  EXPECT_EQ(std::stod(rows[4][7]), (total - total0) / std::abs(total0));
}

TEST(SimulateDiagnostics, AnUnwritableFileFailsBeforeAnyWork) {
  ScratchFolder scratch("diagnostics-unwritable");
  const auto output = scratch / "out.csv";
  const auto result =
      runNbody("simulate --engine cpu --bodies 8 --diagnostics /nonexistent-folder/d.csv -o " +
                   output.string(),
               scratch);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("cannot write /nonexistent-folder/d.csv"), std::string::npos)
      << result.err;
  EXPECT_FALSE(std::filesystem::exists(output));
}

TEST(SimulateScenes, KeplerTakesItsEccentricityFromTheCommandLine) {
  ScratchFolder scratch("kepler-cli");
  ASSERT_EQ(runNbody("simulate --engine cpu --scene kepler --eccentricity 0.3 --steps 0 -o " +
                         (scratch / "k.csv").string(),
                     scratch)
                .exitCode,
            0);
  const State state = readStateCsvFile((scratch / "k.csv").string());
  ASSERT_EQ(state.size(), 2u);
  EXPECT_NEAR(glm::length(glm::dvec3(state.positionMass[1]) - glm::dvec3(state.positionMass[0])),
              0.7, 1e-7);
}

}  // namespace
}  // namespace nbody
