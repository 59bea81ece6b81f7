// Distributed runs as a user starts them: `mpiexec -n K nbody ...` (CMake's MPIEXEC variables), K
// ranks sharing this machine's GPU (llvmpipe in CI, oversubscribed, one thread a rank). What K
// ranks write must be, byte for byte, what one process writes: the final state for every GPU engine
// and method, a snapshot resumed under another K, the diagnostics, bench's and accuracy's figures.
// A rank that fails, a bad input, a capacity refusal, a stop and one path given twice end every
// rank with one line, a non-zero exit and no output half-written.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <tuple>

#include <sys/resource.h>

#include <nlohmann/json.hpp>

#include "app/run/output_plan.h"
#include "gl/gl_test.h"
#include "io/gadget_hdf5.h"
#include "io/snapshot.h"
#include "support/cli_runner.h"
#include "support/fault_injection.h"

namespace nbody {
namespace {

using test::CommandResult;
using test::runNbody;
using test::ScratchFolder;

// Open MPI refuses root and more ranks than cores unless told; llvmpipe starts a thread per core
// in each rank unless told. MPICH ignores the Open MPI variables.
const std::string kRankEnvironment =
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 "
    "LP_NUM_THREADS=1";

// The same in this process's environment, for launchers started without a shell.
void setRankEnvironment() {
  for (const char* variable : {"OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM",
                               "OMPI_MCA_rmaps_base_oversubscribe", "LP_NUM_THREADS"})
    ::setenv(variable, "1", 1);
}

std::string onRanks(int count) {
  return std::string(NBODY_MPIEXEC) + " " + NBODY_MPIEXEC_NUMPROC_FLAG + " " +
         std::to_string(count) + " " + NBODY_MPIEXEC_PREFLAGS + " ";
}

// nbody under mpiexec with `count` ranks: `arguments` go to every rank.
CommandResult runOnRanks(int count, const std::string& arguments, const ScratchFolder& scratch) {
  const std::string environment = kRankEnvironment + " " + onRanks(count);
  return runNbody(arguments, scratch, environment);
}

// Processes whose command line names `folder`: ranks left running after their run ended.
std::vector<std::string> processesNaming(const std::filesystem::path& folder) {
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos ||
        pid == std::to_string(::getpid()))
      continue;
    std::string line = test::readWholeFile(entry.path() / "cmdline");
    std::replace(line.begin(), line.end(), '\0', ' ');
    if (line.find(folder.string()) != std::string::npos) found.push_back(pid + ": " + line);
  }
  return found;
}

// nbody's own lines on stderr but the ranks' report (mpiexec adds its own banners).
std::vector<std::string> nbodyLines(const std::string& err) {
  std::vector<std::string> lines;
  std::istringstream text(err);
  for (std::string line; std::getline(text, line);)
    if (line.rfind("nbody: ", 0) == 0 && line.rfind("nbody: rank ", 0) != 0) lines.push_back(line);
  return lines;
}

struct EngineMethod {
  std::string engine, method;
};
void PrintTo(const EngineMethod& c, std::ostream* out) { *out << c.engine << " " << c.method; }

std::vector<EngineMethod> everyEngineAndMethod() {
  std::vector<EngineMethod> cases;
  for (const std::string& engine : test::gpuEngineNames())
    for (const Method& method : allMethods()) cases.push_back({engine, method.name});
  return cases;
}

class RanksGiveTheBitsOfOne : public ::testing::TestWithParam<EngineMethod> {};

// N = 3001, a multiple of neither the ranks nor any granule (rows, blocks, groups).
TEST_P(RanksGiveTheBitsOfOne, ForEveryEngineMethodAndRankCount) {
  const auto& [engine, method] = GetParam();
  ScratchFolder scratch("ranks-" + engine + "-" + method);
  const std::string run = "simulate --engine " + engine + " --method " + method +
                          " --scene plummer --bodies 3001 --steps 3 --seed 7 -q -o ";
  ASSERT_EQ(runNbody(run + (scratch / "one.nbody").string(), scratch).exitCode, 0);
  const std::string one = test::readWholeFile(scratch / "one.nbody");
  for (const int count : {1, 2, 3, 4}) {
    const auto path = scratch / ("k" + std::to_string(count) + ".nbody");
    const CommandResult result = runOnRanks(count, run + path.string(), scratch);
    ASSERT_EQ(result.exitCode, 0) << count << " ranks: " << result.err;
    EXPECT_TRUE(test::readWholeFile(path) == one)
        << count << " ranks wrote other bytes than one process";
  }
}

INSTANTIATE_TEST_SUITE_P(EveryGpuEngine, RanksGiveTheBitsOfOne,
                         ::testing::ValuesIn(everyEngineAndMethod()),
                         [](const ::testing::TestParamInfo<EngineMethod>& param) {
                           std::string name = param.param.engine + "_" + param.param.method;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

class RanksAtTenThousand : public ::testing::TestWithParam<std::string> {};

// The size, N = 10000, with the diagnostics (measured on every rank's whole state) too;
// the decomposed tree's as well.
TEST_P(RanksAtTenThousand, WriteTheStateAndDiagnosticsOfOneProcess) {
  std::string folder = "ranks-10000-" + GetParam();
  std::replace_if(
      folder.begin(), folder.end(), [](char c) { return !std::isalnum(c); }, '-');
  ScratchFolder scratch(folder);
  const std::string run =
      "simulate --engine " + GetParam() +
      " --scene uniform-sphere --bodies 10000 --steps 2 -q --diagnostics-every 1 ";
  const auto outputs = [&](const std::string& name) {
    return "-o " + (scratch / (name + ".nbody")).string() + " --diagnostics " +
           (scratch / (name + ".csv")).string();
  };
  ASSERT_EQ(runNbody(run + outputs("one"), scratch).exitCode, 0);
  const CommandResult result = runOnRanks(3, run + outputs("three"), scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_TRUE(test::readWholeFile(scratch / "three.nbody") ==
              test::readWholeFile(scratch / "one.nbody"));
  EXPECT_EQ(test::readWholeFile(scratch / "three.csv"), test::readWholeFile(scratch / "one.csv"));
}

INSTANTIATE_TEST_SUITE_P(EveryGpuEngine, RanksAtTenThousand,
                         ::testing::ValuesIn(test::gpuEngineNames()));
INSTANTIATE_TEST_SUITE_P(DecomposedTree, RanksAtTenThousand,
                         ::testing::Values("tree --set distribute=decompose"));

// The decomposed tree's collectives (docs/decomposed-tree-design.md, step 1) under 1 to 4 ranks:
// integer sums over a span past 32 bits, and an all-to-all of uneven parts, some empty, small and
// of several MB, which each rank finds in rank order (nbody_decomposed_probe checks what it
// received against what it works out alone, every check on every rank; checked by mutation: the
// parts taken in reverse rank order fail it from 2 ranks).
TEST(DecomposedPieces, CollectivesCarryUnevenPartsInRankOrder) {
  ScratchFolder scratch("decomposed-collectives");
  for (int count = 1; count <= 4; ++count) {
    const CommandResult result = test::runProgram(NBODY_DECOMPOSED_PROBE, "collectives", scratch,
                                                  kRankEnvironment + " " + onRanks(count));
    EXPECT_EQ(result.exitCode, 0) << count << " ranks: " << result.err;
    EXPECT_NE(result.out.find("collectives: ok on " + std::to_string(count) + " ranks"),
              std::string::npos)
        << result.out;
  }
}

// Steps 2 and 3 of the decomposed tree: under K ranks each home's keys are one process's for its
// IDs (the box folded across ranks), and each walker, after the segment cut, the exchange and its
// own sort, holds one process's sorted bodies [P_r, P_{r+1}) in that order with their keys. The
// states tie keys (a dense core, one point: the ID breaks them), sign zeros, and leave segments
// empty (N < K units). Checked by mutation: walkers that join the parts in reverse rank order fail
// the dense core and the one point; homes that keep their own boxes fail every state.
// The probe's `mode` for each state on each of its rank counts: every run ends well.
void probeOnRanks(const std::string& mode,
                  const std::vector<std::pair<std::string, std::vector<int>>>& cases) {
  ScratchFolder scratch("decomposed-" + mode);
  for (const auto& [state, counts] : cases)
    for (int count : counts) {
      const CommandResult result =
          test::runProgram(NBODY_DECOMPOSED_PROBE, mode + " " + state, scratch,
                           kRankEnvironment + " " + onRanks(count));
      EXPECT_EQ(result.exitCode, 0) << state << " on " << count << " ranks: " << result.err;
      EXPECT_NE(result.out.find(mode + ": ok on " + std::to_string(count) + " ranks"),
                std::string::npos)
          << result.out;
    }
}

TEST(DecomposedPieces, EachWalkerSortsOneProcesssSegmentOfTheOrder) {
  probeOnRanks("sort", {{"plummer 3001", {1, 2, 3, 4}},
                        {"uniform 10000", {3}},
                        {"dense-core 3001", {2, 4}},
                        {"one-point 2049", {3}},
                        {"signed-zeros 3001", {3}},
                        {"plummer 1", {4}},
                        {"plummer 3", {4}},
                        {"plummer 129", {4}}});
}

// Step 4: each walker builds the links of its segment's nodes with the keys next to it (halo
// keys): one process's links and parents for every node whose range stays in the segment, and a
// mark for every node whose range crosses a segment start (7 to 16 a rank for Plummer at 3001 on 3
// ranks). Checked by mutation: a kernel that does not mark straddling nodes fails every state.
TEST(DecomposedPieces, EachWalkerBuildsOneProcesssLinksAndMarksTheRest) {
  probeOnRanks("topology", {{"plummer 3001", {2, 3, 4}},
                            {"uniform 10000", {4}},
                            {"dense-core 3001", {3}},
                            {"one-point 2049", {3}},
                            {"plummer 2", {4}},
                            {"plummer 129", {3}}});
}

// Step 5: every rank finds every node over a segment start from key counts added across ranks
// (the same list on every rank, one process's links), and once they are written in, each walker
// holds one process's links and parents for all its nodes. The dense core and the one point reach
// prefixes past the keys, into the positions' bits. Checked by mutation: a left child indexed by
// its first position fails every state; prefixes that stop at the keys fail those two.
TEST(DecomposedPieces, EveryRankFindsTheStraddlingNodesAsOneProcessLinksThem) {
  probeOnRanks("straddling", {{"plummer 3001", {2, 3, 4}},
                              {"uniform 10000", {3}},
                              {"dense-core 3001", {4}},
                              {"one-point 2049", {3}},
                              {"plummer 129", {4}},
                              {"plummer 2", {2}}});
}

// Step 7: each walker's moments from its own leaves (a climb stops at a straddling node), the
// frontier (the straddling nodes' other children) gathered from every rank and placed through the
// slot hash, and a top pass of the same kernel from the frontier's parents: every record of a
// walker's nodes and of every straddling node is one process's, bit for bit, with no miss. Checked
// by mutation: no top pass, or a frontier node's quadrupole record left out, fails.
TEST(DecomposedPieces, EveryWalkerComputesOneProcesssMoments) {
  probeOnRanks("moments", {{"plummer 3001", {2, 3, 4}},
                           {"uniform 10000", {4}},
                           {"dense-core 3001", {3}},
                           {"one-point 2049", {3}},
                           {"plummer 129", {4}},
                           {"plummer 2", {2}}});
}

// Steps 2 to 9 end to end (tree::DecomposedTree): homes of whole rows sort their bodies, walkers
// their segments; each rank selects on the GPU (tree_let.comp) what the walks of the others'
// chunks may read of its segment, by the walk's opening made conservative in double, and sends it;
// each walker places what it received (the bodies of lower ranks before its own, of higher after),
// walks its groups, and the ranks share the accelerations by ID. Under the relative opening (the
// defaults) in two LET rounds: the coarse walk's geometric test, the coarse walk, each chunk's
// least |a| gathered, the main walk's. Every body's acceleration, on every rank, is one process's,
// bit for bit; a miss (a body range received in part counts as one) throws; the arrays in
// textures too (array-bytes), and the state moved a few textures at a time and gathered in pieces
// (piece-bytes: 21000 bytes, one or two textures of 650-1000 bodies, 583 records; 3000 bytes: each
// texture in pieces of about 170 bodies, a share of each rank's list in each). The probe prints
// the LETs' sizes. Checked by mutation: a piece's records packed from the first held body on, a
// batch of textures laid out with the stride of all, or batches each rank cuts by its own count
// (its MPI calls then differ from the others'), fail. Checked by mutation too: leaf children
// not sent, or straddling nodes' ranges not sent, fail every state but the dense core (misses);
// opening radii shrunk by 2^-10 fail the uniform sphere; a chunk's greatest |a| for its least fails
// every state but the one point (where every |a| is 0).
// Under AddressSanitizer (CI's time) the host code of the other cases' own, in two runs: uneven
// parts with the arrays in textures and the moves in pieces, and the geometric opening.
TEST(DecomposedPieces, WithTheirLocalEssentialTreesEachWalkerWalksToOneProcesssAccelerations) {
  const std::string geometric = " opening=geometric,theta=0.43";
  if (test::underAddressSanitizer())
    return probeOnRanks("let", {{"dense-core 3001 array-bytes=4096,piece-bytes=3000", {3}},
                                {"plummer 3001" + geometric, {3}}});
  probeOnRanks("let", {{"plummer 3001", {2, 3, 4}},
                       {"uniform 10000", {4}},
                       {"dense-core 3001", {3}},
                       {"one-point 2049", {3}},
                       {"signed-zeros 3001", {3}},
                       {"plummer 129", {4}},
                       {"plummer 3001 group=256", {3}},
                       {"plummer 3001 chunk=128", {4}},
                       {"plummer 3001 array-bytes=4096", {3}},
                       {"plummer 3001 piece-bytes=21000", {3}},
                       {"plummer 3001 piece-bytes=3000", {3}},
                       {"plummer 3001" + geometric, {3}},
                       {"uniform 10000" + geometric, {4}},
                       {"plummer 3001" + geometric + ",leaf=1,small=20,group=16", {3}},
                       {"plummer 3001" + geometric + ",leaf=64,small=0,chunk=256", {3}}});
}

// A walker whose part of the tree would pass what the GPU's tree arrays hold is refused in one line
// that names the records it needs and the most (textures of 54 rows of 64 texels: 54 x 64 / 2
// node records, 2 texels each). Until round 59 it grew its arrays past the rows a texture may have
// and walked what no texture held (950M bodies on 2 H200s: 536M records a rank at most). Checked
// by mutation: the arrays grown as before (an eighth more than asked, unbounded) fails it.
TEST(DecomposedPieces, AWalkerPastTheGpusTreeArraysIsRefusedInOneLine) {
  ScratchFolder scratch("decomposed-walker-limit");
  constexpr int kRows = 54, kWidth = 64;
  const CommandResult result =
      test::runProgram(NBODY_DECOMPOSED_PROBE,
                       "let plummer 3001 array-bytes=4096,texture-rows=" + std::to_string(kRows),
                       scratch, kRankEnvironment + " " + onRanks(2));
  EXPECT_NE(result.exitCode, 0) << result.out;
  const std::string most = "over the " + std::to_string(kRows * kWidth / 2) +
                           " this GPU's tree arrays hold: run on more ranks";
  EXPECT_NE(result.err.find("'s part of the tree needs "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(most), std::string::npos) << result.err;
}

// Step 6, in one process: one GPU's tree rearranged as a walker of its middle third would hold it
// (that third's nodes at slots from 0, the others' after them in reverse order, every body 7 slots
// on, the others' nodes and bodies found through the slot hash) walks that third to one process's
// accelerations, bit for bit, with no miss; the relative opening's coarse walk too. Checked by
// mutation: a walk that reads a node's records at its index, a range's bodies from its first
// position, or its own bodies without the shift, fails.
TEST(DecomposedPieces, AWalkerReadsNodesAndBodiesThroughItsSlots) {
  probeOnRanks("slots", {{"plummer 3001", {1}},
                         {"uniform 10000", {1}},
                         {"dense-core 3001", {1}},
                         {"one-point 2049", {1}}});
}

// A run started from each rank's part of the state (Engine::uploadPart: the bodies scattered over
// the ranks by a hash of their index, none on rank 1 where there are three ranks or more) holds and
// steps (RK4) the state a run started from the whole does, bit for bit, its IDs and components
// too: the decomposed tree, each rank holding its part alone, and the fragment engine, which
// gathers the parts. Checked by mutation: a part's first IDs swapped, or the IDs not gathered,
// fail the tree.
TEST(DecomposedPieces, ARunStartedFromEachRanksPartIsOneStartedFromTheWhole) {
  if (test::underAddressSanitizer()) return probeOnRanks("start-parts", {{"plummer 3001", {3}}});
  probeOnRanks("start-parts", {{"plummer 3001", {2, 3, 4}}, {"plummer 9", {4}}});
}

// Kept apart, the decomposed tree holds a state that fits no one texture of the GPU: the largest
// texture lowered to 54 x 54 texels (2916 < 3001 bodies), it checks, holds and steps (RK4) the
// state, started from each rank's part or from the whole, to the bits of a run under the GPU's
// own limits, and refuses in words, changing nothing, to gather it whole (deferGathering(false),
// distribute=replicate). Checked by mutation: the whole state's texture sized as before (refused
// at the upload), each rank's rows from the whole's width of none (the upload's division by 0).
TEST(DecomposedPieces, AStatePastTheLargestTextureIsHeldApartWithOneTexturesBits) {
  probeOnRanks("past-texture", {{"plummer 3001", {2, 3}}});
}

// Ranks whose GPUs offer different limits (rank 0 of `nbody run` may draw and compute on another
// GPU or driver than the others) agree on the least of each before the tree's `auto` chooses how
// to share: every rank decomposes where only rank 0's own limits would replicate. Checked by
// mutation: no agreement (each rank its own limits) fails, rank 0 replicating.
TEST(DecomposedPieces, TheRanksAgreeOnTheLimitsThatChooseHowTheTreeIsShared) {
  probeOnRanks("agree-limits", {{"plummer 9", {2, 3}}});
}

// The GPU's diagnostics of each rank's own bodies (a decomposed run's homes), their exponents
// folded and their integer sums added across ranks, are one GPU's of every body, bit for bit:
// masses from 2^-60 to 2^40 too, and ranks without bodies. Checked by mutation: ranks that keep
// their own exponents fail.
TEST(DecomposedPieces, DiagnosticsOfEveryRanksBodiesAreOneGpusBits) {
  probeOnRanks("diagnostics",
               {{"plummer 3001", {1, 2, 3, 4}}, {"wide 5000", {3}}, {"uniform 2", {4}}});
}

// A snapshot written by 3 ranks, resumed by 2: the uninterrupted run's bytes (leapfrog reuses the
// last step's force, which a resumed run must compute again alike).
TEST(Ranks, ASnapshotOfThreeRanksResumedByTwoEndsAsTheUninterruptedRun) {
  ScratchFolder scratch("ranks-resume");
  const std::string common = "--engine tree --method leapfrog --scene galaxies --bodies 3001 -q ";
  ASSERT_EQ(
      runNbody("simulate " + common + "--steps 6 -o " + (scratch / "whole.nbody").string(), scratch)
          .exitCode,
      0);
  CommandResult result = runOnRanks(
      3, "simulate " + common + "--steps 3 -o " + (scratch / "half.nbody").string(), scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  result = runOnRanks(2,
                      "simulate -q --engine tree --input " + (scratch / "half.nbody").string() +
                          " --steps 3 -o " + (scratch / "resumed.nbody").string(),
                      scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_TRUE(test::readWholeFile(scratch / "resumed.nbody") ==
              test::readWholeFile(scratch / "whole.nbody"));
}

class DecomposedTreeGivesTheBitsOfOne : public ::testing::TestWithParam<std::string> {};

// The decomposed tree (--set distribute=decompose) under 2, 3 and 4 ranks writes one process's
// final state, byte for byte: a uniform sphere falling in and a rotating disk, with steps long
// enough that bodies cross the segments' borders (cut anew at every evaluation); N = 3001, a
// multiple of nothing. Checked by mutation: leaf children left out of the LETs end every run with
// one line, "a walker missed records its local essential tree should hold".
TEST_P(DecomposedTreeGivesTheBitsOfOne, WhileBodiesCrossSegments) {
  for (const std::string scene : {"uniform-sphere --dt 0.02", "disk --dt 0.01"}) {
    ScratchFolder scratch("decomposed-" + GetParam());
    const std::string run = "simulate --engine tree --set distribute=decompose --method " +
                            GetParam() + " --bodies 3001 --steps 6 -q --scene " + scene + " -o ";
    ASSERT_EQ(runNbody(run + (scratch / "one.nbody").string(), scratch).exitCode, 0);
    const std::string one = test::readWholeFile(scratch / "one.nbody");
    for (const int count : {2, 3, 4}) {
      const auto path = scratch / ("k" + std::to_string(count) + ".nbody");
      const CommandResult result = runOnRanks(count, run + path.string(), scratch);
      ASSERT_EQ(result.exitCode, 0) << scene << ", " << count << " ranks: " << result.err;
      EXPECT_TRUE(test::readWholeFile(path) == one) << scene << ", " << count << " ranks";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, DecomposedTreeGivesTheBitsOfOne,
                         ::testing::Values("euler", "rk2", "rk4", "symplectic-euler", "leapfrog"));

// So few bodies that some ranks start holding none (the state's rows are fewer than the ranks):
// RK4 under 4 ranks still writes one process's final state (a rank without bodies once crashed
// making its empty textures).
TEST(DecomposedTree, RanksThatStartWithNoBodiesGiveTheBitsOfOne) {
  ScratchFolder scratch("decomposed-few");
  for (const int bodies : {2, 9}) {
    const std::string run =
        "simulate --engine tree --set distribute=decompose --method rk4 -q "
        "--steps 3 --bodies " +
        std::to_string(bodies) + " -o ";
    ASSERT_EQ(runNbody(run + (scratch / "one.csv").string(), scratch).exitCode, 0);
    const CommandResult result = runOnRanks(4, run + (scratch / "k4.csv").string(), scratch);
    ASSERT_EQ(result.exitCode, 0) << bodies << " bodies: " << result.err;
    EXPECT_TRUE(test::readWholeFile(scratch / "k4.csv") == test::readWholeFile(scratch / "one.csv"))
        << bodies << " bodies";
  }
}

// The phases of the last evaluation in a rank's file of NBODY_DECOMPOSED_TIMES=FOLDER, as the
// report on stderr says them ("NAME MS " each): its lines "T s: evaluation E, NAME MS ms" after
// a line "# ..." a run.
std::string lastEvaluationsPhases(const std::filesystem::path& file) {
  std::istringstream lines(test::readWholeFile(file));
  std::string phases, line;
  std::size_t last = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("# ", 0) == 0) continue;
    std::size_t evaluation = 0;
    char name[64] = {}, ms[32] = {};
    if (std::sscanf(line.c_str(), "%*f s: evaluation %zu, %63s %31s ms", &evaluation, name, ms) !=
        3)
      return "a line not of a phase: " + line;
    if (evaluation != last) phases.clear();
    last = evaluation;
    phases += std::string(name) + " " + ms + " ";
  }
  return phases;
}

// NBODY_DECOMPOSED_TIMES naming a folder: each rank writes each phase to its own file as it ends
// (a run that hangs shows where), the same phases and times as rank 0's report after it.
TEST(DecomposedTree, PhaseTimesGoToEachRanksFileAsTheyEnd) {
  ScratchFolder scratch("decomposed-times");
  const CommandResult result = runNbody(
      "simulate --engine tree --set distribute=decompose --method rk2 --steps 2 --bodies 3001 -o " +
          (scratch / "k2.csv").string(),
      scratch,
      "NBODY_DECOMPOSED_TIMES=" + scratch.path().string() + " " + kRankEnvironment + " " +
          onRanks(2));
  ASSERT_EQ(result.exitCode, 0) << result.err;
  for (const int rank : {0, 1}) {
    const std::string said = "nbody: rank " + std::to_string(rank) + ", decomposed tree, ms: ";
    const std::size_t at = result.err.rfind(said);
    ASSERT_NE(at, std::string::npos) << result.err;
    const std::size_t end = result.err.find('\n', at);
    const std::string reported = result.err.substr(at + said.size(), end - at - said.size());
    EXPECT_EQ(lastEvaluationsPhases(scratch / ("rank-" + std::to_string(rank) + ".txt")), reported);
    EXPECT_NE(reported.find(" walk "), std::string::npos) << reported;
  }
}

// A snapshot of the decomposed tree under 3 ranks resumed under 2 ends as the uninterrupted run
// of one process.
TEST(DecomposedTree, ASnapshotOfThreeRanksResumedByTwoEndsAsOneProcesssRun) {
  ScratchFolder scratch("decomposed-resume");
  const std::string common =
      "simulate -q --engine tree --set distribute=decompose --method leapfrog ";
  ASSERT_EQ(runNbody(common + "--scene galaxies --bodies 3001 --steps 6 -o " +
                         (scratch / "whole.nbody").string(),
                     scratch)
                .exitCode,
            0);
  CommandResult result = runOnRanks(
      3,
      common + "--scene galaxies --bodies 3001 --steps 3 -o " + (scratch / "half.nbody").string(),
      scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  result = runOnRanks(2,
                      common + "--input " + (scratch / "half.nbody").string() + " --steps 3 -o " +
                          (scratch / "resumed.nbody").string(),
                      scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_TRUE(test::readWholeFile(scratch / "resumed.nbody") ==
              test::readWholeFile(scratch / "whole.nbody"));
}

// The final state and a snapshot written in parts (--snapshot-files ranks) by 3 ranks of the
// decomposed tree: a GADGET HDF5 file a rank, each of about the bodies it holds (less than half of
// one file of all of them), the XDMF index naming every part. Resumed from any part by 2 ranks, the
// run ends as one process's resumed from one file of the same state.
TEST(DecomposedTree, ASnapshotInPartsOfThreeRanksResumedByTwoEndsAsFromOneFile) {
  ScratchFolder scratch("decomposed-parts");
  const std::string common =
      "simulate -q --engine tree --set distribute=decompose --method leapfrog ";
  const std::string start = common + "--scene galaxies --bodies 3001 --steps 3 ";
  ASSERT_EQ(runNbody(start + "-o " + (scratch / "one.hdf5").string(), scratch).exitCode, 0);
  ASSERT_EQ(runNbody(common + "--input " + (scratch / "one.hdf5").string() + " --steps 3 -o " +
                         (scratch / "whole.csv").string(),
                     scratch)
                .exitCode,
            0);
  CommandResult result = runOnRanks(
      3,
      start + "--snapshot-files ranks --snapshot-every 2 --snapshot-path " +
          (scratch / "snap-{step}.hdf5").string() + " -o " + (scratch / "half.hdf5").string(),
      scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_FALSE(std::filesystem::exists(scratch / "half.hdf5"));
  const auto whole = std::filesystem::file_size(scratch / "one.hdf5");
  for (int part = 0; part < 3; ++part) {
    const std::string name = "half." + std::to_string(part) + ".hdf5";
    ASSERT_TRUE(std::filesystem::exists(scratch / name)) << name;
    EXPECT_LT(std::filesystem::file_size(scratch / name), whole / 2) << name;
    EXPECT_TRUE(
        std::filesystem::exists(scratch / ("snap-000000002." + std::to_string(part) + ".hdf5")));
    EXPECT_NE(test::readWholeFile(scratch / "snap.xmf")
                  .find("snap-000000002." + std::to_string(part) + ".hdf5:/PartType"),
              std::string::npos);
  }
  for (const std::string part : {"half.0.hdf5", "half.2.hdf5"}) {
    result = runOnRanks(2,
                        common + "--input " + (scratch / part).string() + " --steps 3 -o " +
                            (scratch / "resumed.csv").string(),
                        scratch);
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_TRUE(test::readWholeFile(scratch / "resumed.csv") ==
                test::readWholeFile(scratch / "whole.csv"))
        << "from " << part;
  }
}

// A CSV of the state in `csv` with each body's component its row's place modulo 3: the types of a
// GADGET file interleaved in the state's order, so that one file's order (by type, then StateIndex)
// is not the state's.
void interleaveComponents(const std::filesystem::path& csv) {
  std::istringstream in(test::readWholeFile(csv));
  std::ostringstream out;
  std::string line;
  std::getline(in, line);
  out << line << "\n";
  for (int row = 0; std::getline(in, line); ++row)
    out << line.substr(0, line.find_last_of(',') + 1) << row % 3 << "\n";
  std::ofstream(csv, std::ios::binary) << out.str();
}

// start.csv in `scratch`: two galaxies of `bodies` in all, their components interleaved.
void writeInterleavedStart(const ScratchFolder& scratch, int bodies) {
  const CommandResult made =
      runNbody("simulate -q --scene galaxies --bodies " + std::to_string(bodies) +
                   " --steps 0 -o " + (scratch / "start.csv").string(),
               scratch);
  ASSERT_EQ(made.exitCode, 0) << made.err;
  interleaveComponents(scratch / "start.csv");
}

// The part files `a`.K.hdf5 and `b`.K.hdf5 (K < `files`) hold the same bodies, StateIndex included.
void expectSameParts(const ScratchFolder& scratch, const std::string& a, const std::string& b,
                     int files) {
  for (int file = 0; file < files; ++file) {
    GadgetBodies bodies[2];
    for (int k = 0; k < 2; ++k) {
      const std::string path =
          (scratch / ((k == 0 ? a : b) + "." + std::to_string(file) + ".hdf5")).string();
      bodies[k] = readGadgetHdf5File(test::readWholeFile(path), path).bodies;
    }
    GadgetBodies::forEachList([&](auto list, std::size_t) {
      EXPECT_TRUE(bodies[0].*list == bodies[1].*list) << a << " and " << b << ", file " << file;
    });
  }
}

// How a run reads a part snapshot: its command without --input, and its output's option and file
// (a name in the run's folder), and the file it would write (simulate's first part).
struct PartReader {
  std::string command, outputOption, output, written;
};
const PartReader kSimulateInParts{
    "simulate -q --engine tree --set distribute=decompose --snapshot-files ranks", "-o",
    "failed.hdf5", "failed.0.hdf5"};

// The part files `name`.K.hdf5 (K < `files`) copied into a folder of their own, file `damaged`
// there cut short: `reader` run from the copy's file `named` under `ranks` ranks fails naming rank
// `readBy` alone, as only a run that reads a share of the files a rank can (where every rank
// reads every file, every rank fails alike), and writes nothing.
void expectOneRankReads(const ScratchFolder& scratch, const std::string& name, int files,
                        int damaged, int named, int ranks, int readBy,
                        const PartReader& reader = kSimulateInParts) {
  const std::filesystem::path folder = scratch / ("damaged-" + std::to_string(ranks));
  std::filesystem::create_directories(folder);
  for (int file = 0; file < files; ++file) {
    const std::string part = name + "." + std::to_string(file) + ".hdf5";
    const std::string bytes = test::readWholeFile(scratch / part);
    std::ofstream(folder / part, std::ios::binary)
        << (file == damaged ? bytes.substr(0, 3000) : bytes);
  }
  const CommandResult result =
      runOnRanks(ranks,
                 reader.command + " --input " +
                     (folder / (name + "." + std::to_string(named) + ".hdf5")).string() + " " +
                     reader.outputOption + " " + (folder / reader.output).string(),
                 scratch);
  EXPECT_NE(result.exitCode, 0);
  const std::string said = "rank " + std::to_string(readBy) + " of " + std::to_string(ranks) + " (",
                    file = name + "." + std::to_string(damaged) + ".hdf5: HDF5";
  EXPECT_NE(result.err.find(said), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(file), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(folder / reader.written));
}

// Resumed in parts (--snapshot-files ranks), each rank reads only its share of the part files
// (app/run/snapshot_share.h) and the ranks agree on each body's place in the whole: from 3 files
// of interleaved types, under 2 ranks (named by a file not the first), under 4 (one reads no file)
// and under 3 (each its file), the run ends as one process's reading every file, and each rank's
// part is what it is where every rank reads every file (the bodies' places in the whole, their
// StateIndex, included). Where a rank read more rows than a rank plans for (an eighth over N/K)
// every rank then holds its even share of the indices (the probe's read-share: 3 files on 2 ranks,
// one file on 3; mutation: the rows always left where they were read fails); else each keeps the
// rows of its files, in the order of their indices (3 files on 3 ranks, and a 4-rank run's 4 parts
// on 2, resumed to the same end; mutations: the rows always evened out, or kept in the files'
// order, fail). A damaged file fails the run naming the one rank that read it (where every rank
// read every file, every rank failed alike), nothing written.
TEST(DecomposedTree, EachRankReadsItsShareOfAPartSnapshotAndEndsAsFromEveryFile) {
  ScratchFolder scratch("decomposed-shares");
  const auto at = [&](const std::string& name) { return (scratch / name).string(); };
  const std::string common =
      "simulate -q --engine tree --set distribute=decompose --method leapfrog ";
  ASSERT_NO_FATAL_FAILURE(writeInterleavedStart(scratch, 3001));
  CommandResult result = runOnRanks(3,
                                    common + "--input " + at("start.csv") +
                                        " --steps 2 --snapshot-files ranks -o " + at("half.hdf5"),
                                    scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  result = runNbody(common + "--input " + at("half.0.hdf5") + " --steps 3 -o " + at("whole.csv"),
                    scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  result = runNbody("simulate -q --input " + at("half.0.hdf5") + " --steps 0 -o " + at("one.hdf5"),
                    scratch);  // the same state in one file, which rank 0 alone reads
  ASSERT_EQ(result.exitCode, 0) << result.err;
  for (const auto& [count, named] : {std::pair{2, "half.1.hdf5"}, std::pair{4, "half.0.hdf5"},
                                     std::pair{2, "one.hdf5"}, std::pair{3, "half.2.hdf5"}}) {
    const std::string resume =
        common + "--input " + at(named) + " --steps 3 --snapshot-files ranks -o ";
    result = runOnRanks(count, resume + at("resumed.hdf5"), scratch);
    ASSERT_EQ(result.exitCode, 0) << result.err;
    result = runOnRanks(count, resume + at("gathered.hdf5") + " --diagnostics " + at("d.csv"),
                        scratch);  // diagnostics need the whole: every rank reads every file
    ASSERT_EQ(result.exitCode, 0) << result.err;
    expectSameParts(scratch, "resumed", "gathered", count);
    result = runNbody(
        "simulate -q --input " + at("resumed.0.hdf5") + " --steps 0 -o " + at("resumed.csv"),
        scratch);
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_TRUE(test::readWholeFile(scratch / "resumed.csv") ==
                test::readWholeFile(scratch / "whole.csv"))
        << count << " ranks from " << named;
  }
  // 4 walkers' parts, each rank of 2 keeping two of them: rows of two files, sorted by index.
  result = runOnRanks(4,
                      common + "--input " + at("half.1.hdf5") +
                          " --steps 1 --snapshot-files ranks -o " + at("quarter.hdf5"),
                      scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  result = runOnRanks(2,
                      common + "--input " + at("quarter.3.hdf5") +
                          " --steps 2 --snapshot-files ranks -o " + at("two.hdf5"),
                      scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  result = runNbody("simulate -q --input " + at("two.0.hdf5") + " --steps 0 -o " + at("two.csv"),
                    scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_TRUE(test::readWholeFile(scratch / "two.csv") ==
              test::readWholeFile(scratch / "whole.csv"));
  for (const auto& [count, named, layout] :
       {std::tuple{2, "half.1.hdf5", "even"}, std::tuple{3, "one.hdf5", "even"},
        std::tuple{3, "half.0.hdf5", "kept"}, std::tuple{2, "quarter.0.hdf5", "kept"}}) {
    result = test::runProgram(NBODY_DECOMPOSED_PROBE, "read-share " + at(named) + " " + layout,
                              scratch, kRankEnvironment + " " + onRanks(count));
    EXPECT_EQ(result.exitCode, 0) << layout << "\n" << result.err;
    EXPECT_NE(result.out.find("read-share: ok on " + std::to_string(count) + " ranks"),
              std::string::npos)
        << result.err;
  }
  expectOneRankReads(scratch, "half", 3, 2, 0, 2, 1);
  expectOneRankReads(scratch, "half", 3, 2, 1, 4, 2);
  // A file left by an older snapshot of more files, named: refused as one process refuses it.
  std::filesystem::copy_file(scratch / "resumed.3.hdf5", scratch / "half.3.hdf5");
  const std::string stale = " --steps 3 --snapshot-files ranks -o " + at("stale.hdf5");
  const CommandResult alone = runNbody(common + "--input " + at("half.3.hdf5") + stale, scratch);
  result = runOnRanks(2, common + "--input " + at("half.3.hdf5") + stale, scratch);
  EXPECT_NE(alone.exitCode, 0);
  EXPECT_NE(result.exitCode, 0);
  EXPECT_NE(alone.err.find("half.0.hdf5: its header says 3 files"), std::string::npos) << alone.err;
  const std::string refusal = alone.err.substr(alone.err.find(at("half.0.hdf5")));
  EXPECT_NE(result.err.find(refusal.substr(0, refusal.find('\n'))), std::string::npos)
      << result.err;  // rank 0's, which reads file 0
}

// The part files `name`.K.hdf5 (K < `files`) written again, each body's StateIndex left out, or
// the last file's first body given file 0's first StateIndex (`twice`).
void rewriteParts(const ScratchFolder& scratch, const std::string& name, int files, bool twice) {
  std::vector<GadgetPart> parts;
  for (int file = 0; file < files; ++file) {
    const std::string path = (scratch / (name + "." + std::to_string(file) + ".hdf5")).string();
    parts.push_back(readGadgetHdf5File(test::readWholeFile(path), path));
  }
  for (GadgetPart& part : parts) {
    if (!twice) part.bodies.stateIndex.clear();
    part.bodies.doublePrecision = true;
  }
  if (twice) parts.back().bodies.stateIndex[0] = parts[0].bodies.stateIndex[0];
  for (int file = 0; file < files; ++file) {
    GadgetFileShare share{file, files, {}};
    std::copy(std::begin(parts[file].totals), std::end(parts[file].totals), share.totals);
    std::ofstream(scratch / (name + "." + std::to_string(file) + ".hdf5"), std::ios::binary)
        << gadgetHdf5PartImage(parts[file].bodies, share);
  }
}

// Part files without StateIndex (another code's snapshot of several files: one file's order is by
// type, then by file and place) read a share a rank end as one process reading every file, each
// rank's part as where every rank reads every file; a StateIndex given twice, in files two ranks
// read, fails every rank alike with one process's message, nothing written.
TEST(DecomposedTree, ASharedReadOrdersFilesWithoutStateIndexAndRefusesOneGivenTwice) {
  ScratchFolder scratch("decomposed-share-order");
  const auto at = [&](const std::string& name) { return (scratch / name).string(); };
  const std::string common =
      "simulate -q --engine tree --set distribute=decompose --method leapfrog --steps 2 ";
  ASSERT_NO_FATAL_FAILURE(
      writeInterleavedStart(scratch, 2001));  // else each file holds about one galaxy, one type
  CommandResult result = runOnRanks(
      3, common + "--input " + at("start.csv") + " --snapshot-files ranks -o " + at("p.hdf5"),
      scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  for (int file = 0; file < 3; ++file)
    std::filesystem::copy_file(scratch / ("p." + std::to_string(file) + ".hdf5"),
                               scratch / ("q." + std::to_string(file) + ".hdf5"));
  rewriteParts(scratch, "p", 3, false);
  rewriteParts(scratch, "q", 3, true);
  const auto readBack = [&](const std::string& part, const std::string& csv) {
    return runNbody("simulate -q --input " + at(part) + " --steps 0 -o " + at(csv), scratch);
  };  // where types interleave, a state read from parts is in another order than the run's
  result = runNbody(
      common + "--input " + at("p.0.hdf5") + " --snapshot-files ranks -o " + at("w.hdf5"), scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  ASSERT_EQ(readBack("w.0.hdf5", "whole.csv").exitCode, 0);
  const std::string resume = common + "--input " + at("p.2.hdf5") + " --snapshot-files ranks -o ";
  result = runOnRanks(2, resume + at("r.hdf5"), scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  result = runOnRanks(2, resume + at("g.hdf5") + " --diagnostics " + at("d.csv"), scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  expectSameParts(scratch, "r", "g", 2);
  ASSERT_EQ(readBack("r.0.hdf5", "r.csv").exitCode, 0);
  EXPECT_TRUE(test::readWholeFile(scratch / "r.csv") == test::readWholeFile(scratch / "whole.csv"));
  expectOneRankReads(scratch, "p", 3, 2, 0, 2, 1);
  const CommandResult alone =
      runNbody(common + "--input " + at("q.0.hdf5") + " -o " + at("q.csv"), scratch);
  result = runOnRanks(
      2, common + "--input " + at("q.0.hdf5") + " --snapshot-files ranks -o " + at("s.hdf5"),
      scratch);
  EXPECT_NE(alone.exitCode, 0);
  EXPECT_NE(result.exitCode, 0);
  EXPECT_NE(alone.err.find("StateIndex gives"), std::string::npos) << alone.err;
  EXPECT_FALSE(nbodyLines(alone.err).empty()) << alone.err;
  EXPECT_EQ(nbodyLines(result.err), nbodyLines(alone.err)) << result.err;
  EXPECT_FALSE(std::filesystem::exists(scratch / "s.0.hdf5"));
}

// bench under the decomposed tree reports per rank, in its JSON, the most bodies the rank's tree
// held (its segment and what its LETs brought: more than N/K, fewer than N for a sphere of 20000
// bodies on 3 ranks) and the LETs' bytes a step; what the ranks sent in all they received in all.
// Its tree's arrays hold what it held, not N. The replicated tree's every rank holds N and sends
// no LET. Each rank's time split of its last
// evaluation (GPU timestamps) has the five parts, and they add up to between half the force's wall
// time (its one step; the rest: reserving, binding, the miss count) and all of it.
void expectSplitOfTheForce(const nlohmann::json& rank) {
  const nlohmann::json& split = rank["time_split_ms"];
  std::vector<std::string> names;
  double sum = 0;
  for (const auto& [name, ms] : split.items()) {
    names.push_back(name);
    EXPECT_GE(ms.get<double>(), 0.0) << name;
    sum += ms.get<double>();
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names,
            (std::vector<std::string>{"LET", "build", "moments", "sort_and_migration", "walk"}));
  EXPECT_GT(split.value("LET", 0.0), 0.0);
  EXPECT_GT(split.value("walk", 0.0), 0.0);
  const double force = rank["force_ms_per_step"];
  EXPECT_LE(sum, force * 1.001 + 0.01) << split.dump();
  EXPECT_GE(sum, force * 0.5) << split.dump();
}

TEST(DecomposedTree, BenchReportsWhatEachRanksTreeHeldAndItsLets) {
  ScratchFolder scratch("decomposed-bench");
  constexpr int kBodies = 20000, kRanks = 3;
  const std::string run = "bench --engine tree --scene uniform-sphere --bodies " +
                          std::to_string(kBodies) + " --steps 1 --repetitions 1 --json ";
  std::map<std::string, double> interactions;  // a step's, by distribute
  for (const std::string distribute : {"decompose", "replicate"}) {
    const auto path = scratch / (distribute + ".json");
    const CommandResult result =
        runOnRanks(kRanks, run + path.string() + " --set distribute=" + distribute, scratch);
    ASSERT_EQ(result.exitCode, 0) << result.err;
    const nlohmann::json timed = nlohmann::json::parse(test::readWholeFile(path))["results"][0];
    // Decomposed, bench reads only the ranks' parts: the force error, but no energies.
    EXPECT_EQ(timed["accuracy"]["force_error"]["samples"], kBodies) << distribute;
    EXPECT_EQ(timed.contains("conservation"), distribute == "replicate") << timed.dump();
    const nlohmann::json& ranks = timed["per_rank"];
    ASSERT_EQ(ranks.size(), std::size_t(kRanks));
    double sent = 0, received = 0;
    for (const nlohmann::json& rank : ranks) {
      const double held = rank["bodies_held"];
      sent += rank["let_bytes_sent_per_step"].get<double>();
      received += rank["let_bytes_received_per_step"].get<double>();
      // Euler's five textures of 16 bytes a texel: the whole state's (replicated), or only the
      // held bodies' (decomposed: nothing reads the whole state while bench times).
      const double stateBytes = rank["state_texture_bytes"];
      if (distribute == "replicate") {
        EXPECT_EQ(held, kBodies);
        EXPECT_EQ(rank["tree_array_records"].get<double>(), kBodies);
        EXPECT_GE(stateBytes, 80.0 * kBodies);
      } else {
        EXPECT_GE(stateBytes, 80.0 * kBodies / kRanks / 2);
        EXPECT_LE(stateBytes, 80.0 * (kBodies / kRanks * 1.25 + 256));
        EXPECT_GT(held, kBodies / kRanks);
        EXPECT_LT(held, kBodies);
        // Its tree's arrays sized by what it held (an eighth more where they grew), not by N.
        const double records = rank["tree_array_records"];
        EXPECT_GE(records, held);
        EXPECT_LE(records, held * 1.2 + 64);
        EXPECT_LT(records, kBodies);
        expectSplitOfTheForce(rank);
      }
    }
    EXPECT_EQ(sent, received) << distribute;
    EXPECT_EQ(sent > 0, distribute == "decompose");
    interactions[distribute] = timed["interactions_per_step"];
  }
  // The lists the decomposed ranks walked in the last evaluation, counted across them, are the
  // replicated ranks' (one GPU's lists, and the same states: integers, added exactly).
  EXPECT_GT(interactions["replicate"], 0.0);
  EXPECT_EQ(interactions["decompose"], interactions["replicate"]);
}

// `accuracy` of the decomposed tree under 3 ranks reads the judged bodies from the ranks holding
// them and sums the reference over the bodies as the ranks give them out (the probe's `let` mode
// checks the pieces): one process's figures, bit for bit, sampled (N above --all-up-to) or not.
TEST(DecomposedTree, AccuracyFromTheRanksPartsIsOneProcesss) {
  ScratchFolder scratch("decomposed-accuracy");
  for (const std::string sample : {"", " --all-up-to 1000 --samples 700"}) {
    const std::string run =
        "accuracy --engine tree --set distribute=decompose --scene galaxies --bodies 5003 -q" +
        sample + " --json ";
    ASSERT_EQ(runNbody(run + (scratch / "one.json").string(), scratch).exitCode, 0);
    const CommandResult result = runOnRanks(3, run + (scratch / "three.json").string(), scratch);
    ASSERT_EQ(result.exitCode, 0) << result.err;
    const auto json = [&](const std::string& name) {
      return nlohmann::json::parse(test::readWholeFile(scratch / name));
    };
    const nlohmann::json one = json("one.json"), three = json("three.json");
    EXPECT_EQ(three["force_error"].dump(), one["force_error"].dump()) << sample;
    EXPECT_EQ(three["potential_relative_error"].dump(), one["potential_relative_error"].dump());
    EXPECT_EQ(three["force_error"]["samples"], sample.empty() ? 5003 : 700);
  }
}

// part.K.hdf5 (K < 3) in `scratch`: 3001 galaxies' bodies after a step, in parts of 3 ranks.
void writeGalaxiesInThreeParts(const ScratchFolder& scratch) {
  const CommandResult result = runOnRanks(
      3,
      "simulate -q --engine tree --set distribute=decompose --scene galaxies --bodies 3001 "
      "--steps 1 --snapshot-files ranks -o " +
          (scratch / "part.hdf5").string(),
      scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
}

// The state of the part snapshot whose file `part` names (in `scratch`), read back whole by one
// process and written as one .nbody file: its bytes.
std::string partsReadWhole(const ScratchFolder& scratch, const std::string& part) {
  const std::string whole = (scratch / "whole.nbody").string();
  const CommandResult one = runNbody(
      "simulate -q --steps 0 --input " + (scratch / part).string() + " -o " + whole, scratch);
  EXPECT_EQ(one.exitCode, 0) << one.err;
  return test::readWholeFile(whole);
}

// Past the largest texture (NBODY_LARGEST_TEXTURE=54: 2916 texels for 3001 bodies), the
// decomposed tree under 2 ranks runs what keeps the bodies apart: `simulate` in parts from a scene,
// and resumed from those parts, and `accuracy` past --potential-up-to give what they give under the
// GPU's own limits (the parts read back whole by one process, byte for byte; the force error, bit
// for bit); a run that reads the state whole (one output file) is refused in one line naming the
// way past it, writing nothing. Checked by mutation: the scene's gathering deferred after its
// capacity check (as before round 49) refuses the first run.
TEST(DecomposedTree, PastTheLargestTextureRunsWhatKeepsTheBodiesApart) {
  ScratchFolder scratch("decomposed-past-texture");
  const auto at = [&](const std::string& name) { return (scratch / name).string(); };
  const auto run = [&](bool lowered, const std::string& arguments) {
    const std::string limit = lowered ? "NBODY_LARGEST_TEXTURE=54 " : "";
    return runNbody(arguments, scratch, limit + kRankEnvironment + " " + onRanks(2));
  };
  const auto whole = [&](const std::string& part) { return partsReadWhole(scratch, part); };
  const std::string simulate =
      "simulate -q --engine tree --set distribute=decompose --steps 2 --snapshot-files ranks ";
  for (const bool lowered : {false, true}) {
    const std::string name = lowered ? "past" : "own";
    CommandResult result =
        run(lowered, simulate + "--scene galaxies --bodies 3001 -o " + at(name + ".hdf5"));
    ASSERT_EQ(result.exitCode, 0) << result.err;
    result = run(lowered, simulate + "--input " + at(name + ".1.hdf5") + " -o " +
                              at(name + "-resumed.hdf5"));
    ASSERT_EQ(result.exitCode, 0) << result.err;
    result = run(lowered,
                 "accuracy -q --engine tree --set distribute=decompose --potential-up-to "
                 "0 --all-up-to 1000 --samples 700 --input " +
                     at(name + ".0.hdf5") + " --json " + at(name + ".json"));
    ASSERT_EQ(result.exitCode, 0) << result.err;
  }
  EXPECT_TRUE(whole("past.0.hdf5") == whole("own.0.hdf5"));
  EXPECT_TRUE(whole("past-resumed.0.hdf5") == whole("own-resumed.0.hdf5"));
  EXPECT_EQ(nlohmann::json::parse(test::readWholeFile(scratch / "past.json"))["force_error"].dump(),
            nlohmann::json::parse(test::readWholeFile(scratch / "own.json"))["force_error"].dump());
  const CommandResult refused =
      run(true, "simulate -q --engine tree --set distribute=decompose --bodies 3001 --steps 1 -o " +
                    at("refused.nbody"));
  EXPECT_NE(refused.exitCode, 0);
  EXPECT_EQ(nbodyLines(refused.err),
            std::vector<std::string>{
                "nbody: error: 3001 bodies do not fit in a 54 x 54 texture, the largest this GPU "
                "offers (at most 2916 bodies); past it the ranks keep their bodies apart where "
                "nothing reads them whole (simulate --snapshot-files ranks, bench without "
                "readback)"})
      << refused.err;
  EXPECT_FALSE(std::filesystem::exists(scratch / "refused.nbody"));
}

// `distribute=auto`, the default, decomposes where one GPU cannot hold the replicated tree and
// replicates elsewhere: with the largest texture lowered to 54 x 54 (2916 texels), 2 ranks
// decompose 3001 bodies, which no replicated tree holds there, to the state of
// `distribute=decompose` (its parts read back whole by one process, byte for byte), and replicate
// 2916 (no decomposed phases said). Checked by mutation: auto always replicating refuses the
// first run; always decomposing says phases for the second.
TEST(DecomposedTree, AutoDecomposesWhereOneGpuCannotHoldTheReplicatedTree) {
  ScratchFolder scratch("decomposed-auto");
  const auto run = [&](const std::string& arguments) {
    return runNbody(
        "simulate -q --engine tree --scene galaxies --steps 2 --snapshot-files ranks " + arguments,
        scratch,
        "NBODY_LARGEST_TEXTURE=54 NBODY_DECOMPOSED_TIMES=1 " + kRankEnvironment + " " + onRanks(2));
  };
  const std::string phases = "decomposed tree, ms:";
  CommandResult result = run("--bodies 3001 -o " + (scratch / "auto.hdf5").string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.err.find(phases), std::string::npos) << result.err;
  result =
      run("--set distribute=decompose --bodies 3001 -o " + (scratch / "decompose.hdf5").string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_TRUE(partsReadWhole(scratch, "auto.0.hdf5") ==
              partsReadWhole(scratch, "decompose.0.hdf5"));
  result = run("--bodies 2916 -o " + (scratch / "fits.hdf5").string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.err.find(phases), std::string::npos) << result.err;
}

// `accuracy` of the decomposed tree past the N its potential's check is asked for (that check
// reads the whole state) keeps the bodies apart: each rank makes its part of the scene, or reads
// its share of a part snapshot's files, nothing gathers the state, and the force error is one
// process's, bit for bit, with no potential reported by either; a damaged file names the one rank
// that read it. Checked by mutation: every rank reading every file fails the damaged file's check.
TEST(DecomposedTree, AccuracyPastThePotentialsCheckHoldsTheBodiesApartWithOneProcesssFigures) {
  ScratchFolder scratch("decomposed-accuracy-share");
  ASSERT_NO_FATAL_FAILURE(writeGalaxiesInThreeParts(scratch));
  const std::string accuracy =
      "accuracy --engine tree --set distribute=decompose --potential-up-to 1000 --all-up-to 1000 "
      "--samples 700 ";
  const auto at = [&](const std::string& name) { return (scratch / name).string(); };
  const auto json = [&](const std::string& name) {
    return nlohmann::json::parse(test::readWholeFile(scratch / name));
  };
  const struct {
    int ranks;
    std::string oneStart, start;  // one process's, the ranks'
  } cases[] = {{2, "--input " + at("part.0.hdf5"), "--input " + at("part.2.hdf5")},
               {3, "--scene plummer --bodies 2047", "--scene plummer --bodies 2047"}};
  for (const auto& c : cases) {
    const CommandResult one =
        runNbody(accuracy + c.oneStart + " --json " + at("one.json"), scratch);
    ASSERT_EQ(one.exitCode, 0) << one.err;
    const CommandResult result =
        runOnRanks(c.ranks, accuracy + c.start + " --json " + at("K.json"), scratch);
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.err.find(", each rank holding its share;"), std::string::npos) << result.err;
    EXPECT_EQ(json("K.json")["force_error"].dump(), json("one.json")["force_error"].dump())
        << c.start;
    EXPECT_EQ(json("K.json")["force_error"]["samples"], 700);
    EXPECT_TRUE(json("K.json")["potential_relative_error"].is_null());
    EXPECT_TRUE(json("one.json")["potential_relative_error"].is_null());
  }
  expectOneRankReads(scratch, "part", 3, 2, 0, 2, 1,
                     {"accuracy -q --engine tree --set distribute=decompose --potential-up-to 0",
                      "--json", "failed.json", "failed.json"});
}

struct PictureCase {
  int ranks;
  std::string command;  // shot or record, and the look
  bool composited;      // each rank draws its own bodies (drawsRanksParts), or rank 0 the whole
};
void PrintTo(const PictureCase& c, std::ostream* out) { *out << c.ranks << " " << c.command; }

// The line that says where the camera went and what the colours span, without its end.
std::string viewLine(const std::string& err, const char* command) {
  const std::size_t start = err.find(std::string(command) + ": N = ");
  if (start == std::string::npos) return "(no view line)";
  const std::string line = err.substr(start, err.find('\n', start) - start);
  return line.substr(0, line.find("; each rank draws"));
}

class DecomposedPictures : public ::testing::TestWithParam<PictureCase> {};

// Pictures of the decomposed tree under K ranks are one process's, byte for byte (PNG and the
// H.264 movie alike), with the same camera and colour range. Where the look needs nothing of every
// body but the parts give, each rank draws its own bodies and the exact sprite sums are added
// across ranks (composited: the whole state is never gathered); else rank 0 draws the whole.
// Checked by mutation: the sums not added across ranks (each rank's own light only), the colour
// range's histograms not summed, the centre's sums of one rank only: all fail.
TEST_P(DecomposedPictures, AreOneProcesssBytes) {
  const PictureCase& c = GetParam();
  ScratchFolder scratch("decomposed-picture");
  const bool movie = c.command.rfind("record", 0) == 0;
  const char* name = movie ? "record" : "shot";
  const std::string extension = movie ? ".mp4" : ".png";
  const std::string run = c.command +
                          " --engine tree --set distribute=decompose --bodies 3001 --width 256 "
                          "--height 192 --out ";
  const CommandResult one = runNbody(run + (scratch / ("one" + extension)).string(), scratch);
  ASSERT_EQ(one.exitCode, 0) << one.err;
  const CommandResult many =
      runOnRanks(c.ranks, run + (scratch / ("K" + extension)).string(), scratch);
  ASSERT_EQ(many.exitCode, 0) << many.err;
  EXPECT_EQ(many.err.find("each rank draws its own bodies, composited") != std::string::npos,
            c.composited)
      << many.err;
  EXPECT_EQ(viewLine(many.err, name), viewLine(one.err, name));
  EXPECT_TRUE(test::readWholeFile(scratch / ("K" + extension)) ==
              test::readWholeFile(scratch / ("one" + extension)));
}

INSTANTIATE_TEST_SUITE_P(
    ShotAndRecord, DecomposedPictures,
    ::testing::Values(
        PictureCase{3, "shot --scene galaxies --steps 4", true},
        PictureCase{2, "shot --steps 3 --color-by radius --color-scale log --camera top", true},
        PictureCase{4, "shot --scene galaxies --steps 3 --color-by component --hide-components 1",
                    true},
        PictureCase{3, "shot --steps 3 --color-by lz --method rk4 --trails 0.002", true},
        PictureCase{3, "record --frames 3 --method leapfrog --orbit 30 --color-by mass", true},
        PictureCase{3, "shot --steps 2 --show density", false},
        PictureCase{2, "shot --steps 2 --select 7 --overlays cells", false}));

// A picture from a part snapshot under 2 ranks, each reading its share of the 3 files and drawing
// its own bodies, is one process's from every file, byte for byte (shot and record start alike:
// app/run/shot_options.cpp); a damaged file names the one rank that read it.
TEST(DecomposedTree, AShotFromPartsReadsAShareARankAndIsOneProcesssPicture) {
  ScratchFolder scratch("decomposed-share-shot");
  ASSERT_NO_FATAL_FAILURE(writeGalaxiesInThreeParts(scratch));
  const std::string shot =
      "shot --engine tree --set distribute=decompose --steps 2 --width 256 --height 192 --input ";
  const CommandResult one = runNbody(
      shot + (scratch / "part.0.hdf5").string() + " --out " + (scratch / "one.png").string(),
      scratch);
  ASSERT_EQ(one.exitCode, 0) << one.err;
  const CommandResult result = runOnRanks(
      2, shot + (scratch / "part.2.hdf5").string() + " --out " + (scratch / "K.png").string(),
      scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.err.find("each rank draws its own bodies, composited"), std::string::npos);
  EXPECT_EQ(viewLine(result.err, "shot"), viewLine(one.err, "shot"));
  EXPECT_TRUE(test::readWholeFile(scratch / "K.png") == test::readWholeFile(scratch / "one.png"));
  expectOneRankReads(scratch, "part", 3, 2, 0, 2, 1,
                     {"shot --engine tree --set distribute=decompose --steps 1", "--out",
                      "failed.png", "failed.png"});
}

// The decomposed tree does not screen contacts yet: a run with collisions ends every rank with
// one line and writes nothing.
TEST(DecomposedTree, RefusesContactScreeningInOneLineWritingNothing) {
  ScratchFolder scratch("decomposed-contacts");
  const auto path = scratch / "final.nbody";
  const CommandResult result = runOnRanks(
      2,
      "simulate -q --engine tree --set distribute=decompose --collisions merge --radius 0.001 "
      "--bodies 3001 --steps 2 -o " +
          path.string(),
      scratch);
  EXPECT_NE(result.exitCode, 0);
  EXPECT_EQ(
      nbodyLines(result.err),
      std::vector<std::string>{"nbody: error: the decomposed tree (distribute=decompose, or auto "
                               "past what one GPU holds replicated) screens no contacts"})
      << result.err;
  EXPECT_FALSE(std::filesystem::exists(path));
}

// In a moving external potential (RK4: every stage at its own time), a run stopped after 2 steps
// on 3 ranks and resumed for 2 on 2 ranks writes the bytes of one process's 4 steps: the snapshot
// carries the potential and the clock its times count from (io/binary_snapshot.h).
TEST(Ranks, InAMovingPotentialStopAndResumeAsOneProcessRuns) {
  for (const std::string engine : {"fragment", "compute", "tree"}) {
    ScratchFolder scratch("ranks-potential-" + engine);
    const std::string common =
        "--engine " + engine +
        " --method rk4 --dt 0.0013 --scene plummer --bodies 3001 --seed 7 -q "
        "--potential 'mw2014+point:mass=0.05,circle=1.5;0.8;0.3' ";
    ASSERT_EQ(runNbody("simulate " + common + "--steps 4 -o " + (scratch / "whole.nbody").string(),
                       scratch)
                  .exitCode,
              0);
    CommandResult result = runOnRanks(
        3, "simulate " + common + "--steps 2 -o " + (scratch / "half.nbody").string(), scratch);
    ASSERT_EQ(result.exitCode, 0) << result.err;
    result = runOnRanks(2,
                        "simulate -q --engine " + engine + " --input " +
                            (scratch / "half.nbody").string() + " --steps 2 -o " +
                            (scratch / "resumed.nbody").string(),
                        scratch);
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_TRUE(test::readWholeFile(scratch / "resumed.nbody") ==
                test::readWholeFile(scratch / "whole.nbody"))
        << engine;
  }
}

// Mergers (--collisions merge, app/run/collision_watch.h) under 1 to 4 ranks: every rank reads the
// whole state back, finds the same touching bodies and merges them alike, so the final state is
// one process's, byte for byte.
TEST(Ranks, WithMergersGiveTheBitsOfOneProcess) {
  for (const std::string engine : {"fragment", "compute", "tree"}) {
    ScratchFolder scratch("ranks-mergers-" + engine);
    const std::string run = "simulate -q --engine " + engine +
                            " --method leapfrog --dt 0.01 --softening 0.001 --scene protoplanets "
                            "--bodies 1001 --seed 3 --steps 60 --collisions merge --density 8 -o ";
    const CommandResult one = runNbody(run + (scratch / "one.nbody").string(), scratch);
    ASSERT_EQ(one.exitCode, 0) << one.err;
    const State merged = readSnapshotFile(scratch / "one.nbody").state;
    EXPECT_GT(std::count_if(merged.positionMass.begin(), merged.positionMass.end(),
                            [](const glm::vec4& body) { return body.w == 0.0f; }),
              5)
        << engine << ": too few mergers to tell";
    for (const int ranks : {2, 4}) {
      const std::string name = std::to_string(ranks) + ".nbody";
      const CommandResult result = runOnRanks(ranks, run + (scratch / name).string(), scratch);
      ASSERT_EQ(result.exitCode, 0) << result.err;
      EXPECT_TRUE(test::readWholeFile(scratch / name) == test::readWholeFile(scratch / "one.nbody"))
          << engine << " on " << ranks << " ranks";
    }
  }
}

// The figures that do not depend on the clock are one process's: the force errors, the energies.
TEST(Ranks, BenchAndAccuracyReportTheFiguresOfOneProcess) {
  ScratchFolder scratch("ranks-figures");
  const std::string accuracy = "accuracy --engine tree --bodies 3001 -q --json ";
  const std::string bench =
      "bench --engine tree,compute --bodies 3001 --steps 2 --repetitions 1 --csv " +
      (scratch / "b.csv").string() + " --json ";
  ASSERT_EQ(runNbody(accuracy + (scratch / "a1.json").string(), scratch).exitCode, 0);
  ASSERT_EQ(runNbody(bench + (scratch / "b1.json").string(), scratch).exitCode, 0);
  CommandResult result = runOnRanks(2, accuracy + (scratch / "a2.json").string(), scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  result = runOnRanks(3, bench + (scratch / "b3.json").string(), scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const auto json = [&](const std::string& name) {
    return nlohmann::json::parse(test::readWholeFile(scratch / name));
  };
  EXPECT_EQ(json("a2.json")["force_error"].dump(), json("a1.json")["force_error"].dump());
  EXPECT_EQ(json("a2.json")["potential_relative_error"].dump(),
            json("a1.json")["potential_relative_error"].dump());
  const nlohmann::json one = json("b1.json"), three = json("b3.json");
  EXPECT_EQ(three["ranks"], 3);
  EXPECT_EQ(three["exchange"], "shared window");
  EXPECT_EQ(one["exchange"], "none");
  ASSERT_EQ(three["results"].size(), one["results"].size());
  for (std::size_t k = 0; k < one["results"].size(); ++k) {
    const nlohmann::json &a = one["results"][k], &b = three["results"][k];
    for (const char* figure : {"conservation", "accuracy"})
      EXPECT_EQ(b.value(figure, nlohmann::json()).dump(), a.value(figure, nlohmann::json()).dump())
          << k << figure;
    EXPECT_EQ(b.at("per_rank").size(), 3u) << k;
  }
  // The CSV of the 3-rank run: per rank its figures, host and device; the bytes a step.
  std::istringstream csv(test::readWholeFile(scratch / "b.csv"));
  std::string header, row;
  std::getline(csv, header);
  ASSERT_TRUE(std::getline(csv, row)) << header;
  EXPECT_TRUE(
      header.ends_with(",other_ms_by_rank,bytes_exchanged_per_step,hosts_by_rank,devices_by_rank"))
      << header;
  const std::string host = three["hosts"][0];
  EXPECT_NE(row.find(",\"" + host + ";" + host + ";" + host + "\","), std::string::npos) << row;
  // The last fields: the bytes a step (as the JSON says), the hosts, then each rank's device.
  const std::size_t devices = row.rfind(",\""), hosts = row.rfind(",\"", devices - 1);
  const std::size_t bytes = row.rfind(',', hosts - 1);
  EXPECT_EQ(std::stod(row.substr(bytes + 1, hosts - bytes - 1)),
            three["results"][0]["per_rank"][0]["bytes_exchanged_per_step"].get<double>());
  EXPECT_GT(std::stod(row.substr(bytes + 1, hosts - bytes - 1)), 0.0);
  // Each rank's own device (on a machine of several GPUs the ranks' differ).
  std::string eachDevice;
  for (const nlohmann::json& rank : three["results"][0]["per_rank"])
    eachDevice += (eachDevice.empty() ? "" : ";") + rank["device"].get<std::string>();
  EXPECT_EQ(row.substr(devices + 1), "\"" + eachDevice + "\"") << row;
}

// Ranks whose node cannot give a shared window (here: Open MPI told to place it in a folder that
// does not exist) gather through MPI_Allgatherv, say so once, and give the same bits: the texture
// exchange (compute) and the tree's, streamed part by part with the walk.
TEST(Ranks, WithoutASharedWindowGatherThroughMpiWithTheSameBits) {
  ScratchFolder scratch("ranks-no-window");
  const std::string missing = (scratch / "no-such-folder").string();
  const std::string environment =
      kRankEnvironment + " OMPI_MCA_osc_sm_backing_directory=" + missing + " " + onRanks(3);
  for (const std::string engine : {"compute", "tree"}) {
    const std::string run = "simulate --engine " + engine +
                            " --method rk4 --scene plummer --bodies 3001 --steps 2 -q -o ";
    ASSERT_EQ(runNbody(run + (scratch / "one.nbody").string(), scratch).exitCode, 0);
    const CommandResult result =
        runNbody(run + (scratch / "three.nbody").string(), scratch, environment);
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_TRUE(test::readWholeFile(scratch / "three.nbody") ==
                test::readWholeFile(scratch / "one.nbody"))
        << engine;
    const std::vector<std::string> lines = nbodyLines(result.err);
    ASSERT_EQ(lines.size(), 1u) << result.err;
    EXPECT_EQ(lines[0],
              "nbody: the ranks exchange through MPI_Allgatherv, not a shared window: cannot write "
              "into " +
                  missing);
  }
}

// Every failure: a non-zero exit, nbody's one line, no output, no rank left running.
void expectEveryRankEndedCleanly(const CommandResult& result, const ScratchFolder& scratch,
                                 int exitCode, const std::string& expected) {
  EXPECT_EQ(result.exitCode, exitCode) << result.err;
  const std::vector<std::string> lines = nbodyLines(result.err);
  ASSERT_EQ(lines.size(), 1u) << result.err;
  EXPECT_NE(lines[0].find(expected), std::string::npos) << lines[0];
  EXPECT_FALSE(std::filesystem::exists(scratch / "out.csv"));
  EXPECT_EQ(test::temporaryFilesIn(scratch.path()), std::vector<std::string>{});
  EXPECT_EQ(processesNaming(scratch.path()), std::vector<std::string>{});
}

TEST(RankFailures, ARankWithoutAContextEndsEveryRankNamingIt) {
  ScratchFolder scratch("ranks-no-context");
  const std::string run = " " + std::string(NBODY_EXECUTABLE) +
                          " simulate --bodies 500 --steps 2 -q -o " +
                          (scratch / "out.csv").string();
  // The second rank's EGL may try no platform that exists: it alone gets no context.
  const std::string command = kRankEnvironment + " " + onRanks(1) + run + " : " +
                              NBODY_MPIEXEC_NUMPROC_FLAG +
                              " 1 /usr/bin/env NBODY_EGL_PLATFORM=nowhere" + run;
  const int status = std::system((command + " >" + (scratch / "stdout.txt").string() + " 2>" +
                                  (scratch / "stderr.txt").string())
                                     .c_str());
  CommandResult failed;
  failed.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  failed.err = test::readWholeFile(scratch / "stderr.txt");
  expectEveryRankEndedCleanly(failed, scratch, 1, "rank 1 of 2");
}

TEST(RankFailures, ABadInputEndsEveryRankWithOneLine) {
  ScratchFolder scratch("ranks-bad-input");
  std::ofstream(scratch / "bad.csv") << "x,y,z,mass,vx,vy,vz\n1,2,three,1,0,0,0\n";
  expectEveryRankEndedCleanly(runOnRanks(3,
                                         "simulate --input " + (scratch / "bad.csv").string() +
                                             " -q -o " + (scratch / "out.csv").string(),
                                         scratch),
                              scratch, 1, "not a number");
}

TEST(RankFailures, ACapacityRefusalEndsEveryRankWithOneLine) {
  ScratchFolder scratch("ranks-capacity");
  expectEveryRankEndedCleanly(runOnRanks(2,
                                         "simulate --engine fragment --bodies 1073741824 -q -o " +
                                             (scratch / "out.csv").string(),
                                         scratch),
                              scratch, 1, "1073741824 bodies");
}

TEST(RankFailures, OneOutputPathGivenTwiceIsAUsageErrorOnEveryRank) {
  ScratchFolder scratch("ranks-twice");
  const std::string out = (scratch / "out.csv").string();
  expectEveryRankEndedCleanly(
      runOnRanks(2, "simulate -q -o " + out + " --diagnostics " + out, scratch), scratch, 2,
      "are the same file");
}

// The window plays a series in one process; under mpiexec that is a usage error, said before any
// window opens (no display needed).
TEST(RankFailures, PlayingASeriesIsAUsageErrorOnEveryRank) {
  ScratchFolder scratch("ranks-play");
  const auto start = scratch / "step-1.nbody";
  ASSERT_EQ(
      test::runNbody("simulate --bodies 64 --steps 1 -q -o " + start.string(), scratch).exitCode,
      0);
  expectEveryRankEndedCleanly(runOnRanks(2, "run --play " + start.string(), scratch), scratch, 2,
                              "a series plays in one process");
}

// Ctrl-C or SIGTERM to mpiexec: every rank stops at the same step boundary, the snapshots written
// before stay whole, the final state is not written, no temporary file and no rank is left.
class AStopToTheLauncher : public ::testing::TestWithParam<int> {};

TEST_P(AStopToTheLauncher, StopsEveryRankLeavingWholeSnapshots) {
  const int signal = GetParam();
  ScratchFolder scratch("ranks-stop-" + std::to_string(signal));
  setRankEnvironment();
  std::vector<std::string> words{NBODY_MPIEXEC, NBODY_MPIEXEC_NUMPROC_FLAG, "3"};
  if (!std::string(NBODY_MPIEXEC_PREFLAGS).empty()) words.push_back(NBODY_MPIEXEC_PREFLAGS);
  for (const std::string word :
       {NBODY_EXECUTABLE, "simulate", "--engine", "compute", "--bodies", "2000", "--steps",
        "100000000", "--snapshot-every", "20", "--snapshot-path"})
    words.push_back(word);
  words.insert(words.end(),
               {(scratch / "s-{step}.nbody").string(), "-o", (scratch / "out.csv").string()});
  auto launcher = test::RunningNbody::program(words, scratch);
  ASSERT_TRUE(test::waitUntil(
      [&] {
        return std::filesystem::exists(snapshotPathFor((scratch / "s-{step}.nbody").string(), 40));
      },
      120));
  launcher.signal(signal);
  const CommandResult result = launcher.wait(60);
  EXPECT_NE(result.exitCode, 0);
  const std::string& err = result.err;
  const std::vector<std::string> lines = nbodyLines(err);
  ASSERT_EQ(lines.size(), 1u) << err;
  // Open MPI's mpirun passes Ctrl-C on to the ranks as SIGTERM; MPICH's Hydra passes SIGINT.
  EXPECT_NE(lines[0].find(signal == SIGINT ? "stopped by SIG" : "stopped by SIGTERM"),
            std::string::npos)
      << lines[0];
  EXPECT_FALSE(std::filesystem::exists(scratch / "out.csv"));
  EXPECT_EQ(test::temporaryFilesIn(scratch.path()), std::vector<std::string>{});
  // The launcher may end before its ranks have: a rank still exiting (slowly under
  // AddressSanitizer, which checks for leaks at exit) is given a few seconds.
  test::waitUntil([&] { return processesNaming(scratch.path()).empty(); }, 10);
  EXPECT_EQ(processesNaming(scratch.path()), std::vector<std::string>{});
  for (const auto& entry : std::filesystem::directory_iterator(scratch.path())) {
    if (entry.path().extension() != ".nbody") continue;
    EXPECT_NO_THROW(readSnapshotFile(entry.path())) << entry.path();
  }
}

INSTANTIATE_TEST_SUITE_P(RankFailures, AStopToTheLauncher, ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& param) {
                           return std::string(param.param == SIGINT ? "SIGINT" : "SIGTERM");
                         });

// Ranks started with different words or environments (MPMD: `mpiexec -n 1 nbody A : -n 1 nbody B`)
// used to write a state neither run's with exit 0, wait for ever in a collective the other never
// made, or fail with an internal message. They compare what decides the run at their start: a
// usage error naming rank 1, the first difference and both values, every rank ended.
struct RankDifference {
  std::string name, rankZero, rankOne, expectedInMessage;
};
void PrintTo(const RankDifference& c, std::ostream* out) {
  *out << c.rankZero << " : " << c.rankOne;
}

class RanksThatDisagree : public ::testing::TestWithParam<RankDifference> {};

TEST_P(RanksThatDisagree, EndEveryRankNamingTheFirstDifference) {
  ScratchFolder scratch("ranks-disagree");
  std::ofstream(scratch / "ic.csv") << "x,y,z,mass,vx,vy,vz\n0,0,0,1,0,0,0\n1,0,0,1,0,0,0\n";
  const auto words = [&](const std::string& run) {
    return test::withFolder(run, scratch) + " -q -o " + (scratch / "out.nbody").string();
  };
  const std::string& rankOne =
      GetParam().rankOne;  // an environment of its own (env ...) names nbody itself
  const std::string command =
      "env " + kRankEnvironment + " timeout 120 " + onRanks(1) + " " +
      std::string(NBODY_EXECUTABLE) + " " + words(GetParam().rankZero) + " : " +
      NBODY_MPIEXEC_NUMPROC_FLAG + " 1 " +
      (rankOne.starts_with("env ") ? "" : std::string(NBODY_EXECUTABLE) + " ") + words(rankOne);
  const auto out = scratch / "stdout.txt", err = scratch / "stderr.txt";
  const int status = std::system((command + " >" + out.string() + " 2>" + err.string()).c_str());
  CommandResult result;
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = test::readWholeFile(err);
  expectEveryRankEndedCleanly(result, scratch, 2,
                              "the ranks do not run the same thing: on rank 1 of 2");
  EXPECT_NE(result.err.find(test::withFolder(GetParam().expectedInMessage, scratch)),
            std::string::npos)
      << result.err;
  EXPECT_FALSE(std::filesystem::exists(scratch / "out.nbody"));
}

const std::string kSmall = "simulate --bodies 256 --steps 4";

INSTANTIATE_TEST_SUITE_P(
    RankFailures, RanksThatDisagree,
    ::testing::Values(
        RankDifference{"Seed", kSmall, kSmall + " --seed 7",
                       "word 6 of its command line is '--seed' where rank 0's is '-q'"},
        RankDifference{"Method", kSmall + " --method euler", kSmall + " --method rk4",
                       "word 7 of its command line is 'rk4' where rank 0's is 'euler'"},
        RankDifference{"Steps", kSmall, "simulate --bodies 256 --steps 5",
                       "word 5 of its command line is '5' where rank 0's is '4'"},
        RankDifference{"Engine", kSmall + " --engine tree", kSmall + " --engine cpu",
                       "'cpu' where rank 0's is 'tree'"},
        RankDifference{"Diagnostics", kSmall, kSmall + " --diagnostics {d}/d.csv",
                       "is '--diagnostics'"},
        RankDifference{"Command", kSmall, "shot --bodies 256 --steps 4",
                       "word 1 of its command line is 'shot'"},
        RankDifference{"InputOnOneRank", "simulate --steps 4",
                       "simulate --input {d}/ic.csv --steps 4",
                       "word 2 of its command line is '--input'"},
        RankDifference{"DisabledComputeOnOneRank",
                       "simulate --engine compute --bodies 256 --steps 4",
                       "env NBODY_DISABLE_COMPUTE=1 " NBODY_EXECUTABLE
                       " simulate --engine compute --bodies 256 --steps 4",
                       "NBODY_DISABLE_COMPUTE is set to '1' there and unset on rank 0"}),
    [](const auto& param) { return param.param.name; });

// An impatient stop: a second Ctrl-C 50 ms after the first makes mpirun exit at once, and SIGQUIT
// makes it dump core; the ranks are then ended without their handlers (PMIx's _exit a second
// later). Their watchers remove what they leave: no temporary file, no shared-memory segment of
// theirs in /dev/shm, no rank.
struct ImpatientStop {
  std::string name;
  std::vector<int> signals;
};
void PrintTo(const ImpatientStop& c, std::ostream* out) { *out << c.name; }

class AnImpatientStopToTheLauncher : public ::testing::TestWithParam<ImpatientStop> {};

std::vector<std::string> segmentFoldersOf(pid_t launcher) {
  std::vector<std::string> found;
  const std::string prefix = "nbody-rank-" + std::to_string(launcher) + "-";
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm"))
    if (entry.path().filename().string().starts_with(prefix))
      found.push_back(entry.path().string());
  return found;
}

TEST_P(AnImpatientStopToTheLauncher, LeavesNothingOfTheRanks) {
  ScratchFolder scratch("ranks-impatient");
  setRankEnvironment();
  const struct rlimit noCore { 0, 0 };
  struct rlimit core {};
  ::getrlimit(RLIMIT_CORE, &core);
  ::setrlimit(RLIMIT_CORE, &noCore);  // mpirun's own core file, on SIGQUIT
  std::vector<std::string> words{NBODY_MPIEXEC, NBODY_MPIEXEC_NUMPROC_FLAG, "2"};
  if (!std::string(NBODY_MPIEXEC_PREFLAGS).empty()) words.push_back(NBODY_MPIEXEC_PREFLAGS);
  for (const std::string word :
       {NBODY_EXECUTABLE, "simulate", "--bodies", "2048", "--steps", "100000000"})
    words.push_back(word);
  words.insert(words.end(), {"-o", (scratch / "final.nbody").string(), "--diagnostics",
                             (scratch / "d.csv").string()});
  auto launcher = test::RunningNbody::program(words, scratch);
  ::setrlimit(RLIMIT_CORE, &core);
  ASSERT_TRUE(
      test::waitUntil([&] { return test::temporaryFilesIn(scratch.path()).size() == 2; }, 120));
  ASSERT_FALSE(segmentFoldersOf(launcher.pid()).empty())
      << "the ranks' segments are not in folders of their own";
  for (const int signal : GetParam().signals) {
    launcher.signal(signal);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  launcher.wait(60);
  EXPECT_TRUE(test::waitUntil([&] { return processesNaming(scratch.path()).empty(); }, 20))
      << testing::PrintToString(processesNaming(scratch.path()));
  EXPECT_TRUE(test::waitUntil([&] { return test::temporaryFilesIn(scratch.path()).empty(); }, 10))
      << testing::PrintToString(test::temporaryFilesIn(scratch.path()));
  EXPECT_TRUE(test::waitUntil([&] { return segmentFoldersOf(launcher.pid()).empty(); }, 10))
      << testing::PrintToString(segmentFoldersOf(launcher.pid()));
  EXPECT_FALSE(std::filesystem::exists(scratch / "final.nbody"));
}

INSTANTIATE_TEST_SUITE_P(RankFailures, AnImpatientStopToTheLauncher,
                         ::testing::Values(ImpatientStop{"SecondSigint", {SIGINT, SIGINT}},
                                           ImpatientStop{"Sigquit", {SIGQUIT}}),
                         [](const auto& param) { return param.param.name; });

// A backing folder that is a file or a device passed the checks, and Open MPI then hung in
// MPI_Win_allocate_shared: it is refused as a missing one is, with the same bits.
TEST(Ranks, ASharedWindowFolderThatIsAFileOrADeviceIsRefusedWithTheSameBits) {
  ScratchFolder scratch("ranks-window-file");
  std::ofstream(scratch / "a-file") << "x";
  const std::string run =
      "simulate --engine compute --scene plummer --bodies 1001 --steps 2 -q -o ";
  ASSERT_EQ(runNbody(run + (scratch / "one.nbody").string(), scratch).exitCode, 0);
  for (const std::string& folder : {(scratch / "a-file").string(), std::string("/dev/null")}) {
    const std::string environment = "timeout 120 env " + kRankEnvironment +
                                    " OMPI_MCA_osc_sm_backing_directory=" + folder + " " +
                                    onRanks(2);
    const CommandResult result =
        runNbody(run + (scratch / "two.nbody").string(), scratch, environment);
    ASSERT_EQ(result.exitCode, 0) << folder << ": " << result.err;
    EXPECT_TRUE(test::readWholeFile(scratch / "two.nbody") ==
                test::readWholeFile(scratch / "one.nbody"))
        << folder;
    const std::vector<std::string> lines = nbodyLines(result.err);
    ASSERT_EQ(lines.size(), 1u) << result.err;
    EXPECT_EQ(lines[0], "nbody: the ranks exchange through MPI_Allgatherv, not a shared window: " +
                            folder + " is not a folder");
  }
}

// A state that turns non-finite turns so on every rank alike (every rank holds every body): every
// rank stops at the same check, rank 0 names the step and the body, nothing is written.
TEST(RankFailures, ANonFiniteStateEndsEveryRankNamingTheStepAndBody) {
  ScratchFolder scratch("ranks-non-finite");
  std::ofstream(scratch / "ic.csv") << "x,y,z,mass,vx,vy,vz\n0,0,0,1,0,0,0\n1e-15,0,0,1,0,0,0\n";
  std::vector<std::string> engines = test::gpuEngineNames();
  engines.push_back("tree --set distribute=decompose");
  for (const std::string& engine : engines)
    expectEveryRankEndedCleanly(
        runOnRanks(2,
                   "simulate --engine " + engine + " --input " + (scratch / "ic.csv").string() +
                       " --softening 0 --steps 5 --check-every 1 -q -o " +
                       (scratch / "out.csv").string(),
                   scratch),
        scratch, 1, "non-finite between step 0 (the last found finite) and step 1: body 0");
  // Writing in parts, the decomposed tree gathers nothing: the body is read where a rank holds it.
  const CommandResult parts = runOnRanks(
      2,
      "simulate --engine tree --set distribute=decompose --snapshot-files ranks --input " +
          (scratch / "ic.csv").string() + " --softening 0 --steps 5 --check-every 1 -q -o " +
          (scratch / "out.hdf5").string(),
      scratch);
  expectEveryRankEndedCleanly(parts, scratch, 1,
                              "non-finite between step 0 (the last found finite) and step 1: "
                              "body 0 has position (");
  EXPECT_FALSE(std::filesystem::exists(scratch / "out.0.hdf5"));
  EXPECT_FALSE(std::filesystem::exists(scratch / "out.1.hdf5"));
}

// A decomposed bench reads only the ranks' parts: a state that turns non-finite (every body's,
// under a G and a step past float's range) is found there, and every rank ends with one process's
// line naming the body (gathering the whole to look would be a logic error: it is deferred).
TEST(DecomposedTree, BenchFindsANonFiniteStateInTheRanksParts) {
  ScratchFolder scratch("decomposed-bench-non-finite");
  const std::string run =
      "bench --engine tree --set distribute=decompose --bodies 50 --gravity 1e30 --dt 1e20 "
      "--steps 3 --repetitions 1";
  const CommandResult one = runNbody(run, scratch);
  const std::vector<std::string> lines = nbodyLines(one.err);
  ASSERT_EQ(lines.size(), 1u) << one.err;
  EXPECT_NE(lines[0].find("non-finite while timing"), std::string::npos) << lines[0];
  expectEveryRankEndedCleanly(runOnRanks(2, run, scratch), scratch, one.exitCode, lines[0]);
}

}  // namespace
}  // namespace nbody
