// A part snapshot read a share of its files a rank (app/run/snapshot_share.h), here in one process
// (its share: every file), against io's reader of every file (readSnapshotFile): the same bodies
// in the same order, their radii, each row's index in the whole, and the same refusals. The ranks'
// exchanges are checked under mpiexec (tests/gl/distributed_test.cpp, DecomposedTree.*Share*);
// these run the same code in one rank, under the sanitizers too (the cpu tier), without forking a
// process that MPI's threads share.

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/run/snapshot_share.h"
#include "io/gadget.h"
#include "io/gadget_hdf5.h"
#include "support/cli_runner.h"

namespace nbody {
namespace {

using test::ScratchFolder;

// 50 bodies of three types interleaved in the state's order (so that one file's order, by type
// then StateIndex, is not the state's), with IDs of their own.
State interleavedState() {
  State state;
  state.resize(50);
  for (std::size_t i = 0; i < state.size(); ++i) {
    const float x = float(i);
    state.positionMass[i] = {0.1f * x, 1.0f - 0.03f * x, 0.5f * float(i % 7), 1.0f + 0.01f * x};
    state.velocity[i] = {0.02f * x, -0.01f * x, 0.3f, 0.0f};
    state.id[i] = 100 + 3 * i;
    state.component[i] = std::uint8_t(i % 3);
  }
  return state;
}

enum class Damage { none, noStateIndex, stateIndexTwice, stateIndexBeyond };

// `state` in 3 part files, body i in file (7i mod 3), named base.K.hdf5 in `scratch`, each body
// with a radius of its own.
void writeParts(const State& state, const ScratchFolder& scratch, Damage damage) {
  std::vector<GadgetBodies> files(3);
  for (int file = 0; file < 3; ++file) {
    Snapshot part;
    std::vector<std::uint64_t> indices;
    for (std::size_t i = 0; i < state.size(); ++i)
      if (int(7 * i % 3) == file) indices.push_back(i);
    part.state.resize(indices.size());
    part.radii.emplace();
    for (std::size_t k = 0; k < indices.size(); ++k) {
      part.radii->push_back(0.01 * double(indices[k] + 1));
      part.state.positionMass[k] = state.positionMass[indices[k]];
      part.state.velocity[k] = state.velocity[indices[k]];
      part.state.id[k] = state.id[indices[k]];
      part.state.component[k] = state.component[indices[k]];
    }
    files[std::size_t(file)] = gadgetFromSnapshot(part, indices);
    if (damage == Damage::noStateIndex) files[std::size_t(file)].stateIndex.clear();
  }
  if (damage == Damage::stateIndexTwice) files[2].stateIndex[0] = files[0].stateIndex[0];
  if (damage == Damage::stateIndexBeyond) files[2].stateIndex[0] = state.size();
  Snapshot whole;
  whole.state = state;
  whole.radii = std::vector<double>(state.size(), 0.0);
  const GadgetFileShare totals = wholeSnapshotShare(gadgetFromSnapshot(whole));
  for (int file = 0; file < 3; ++file) {
    GadgetFileShare share = totals;
    share.file = file, share.fileCount = 3;
    std::ofstream(scratch / ("base." + std::to_string(file) + ".hdf5"), std::ios::binary)
        << gadgetHdf5PartImage(files[std::size_t(file)], share);
  }
}

bool sameBytes(const auto& a, const auto& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof a[0]) == 0;
}

void expectTheWholesBodies(Damage damage) {
  ScratchFolder scratch("snapshot-share");
  writeParts(interleavedState(), scratch, damage);
  const std::filesystem::path named = scratch / "base.1.hdf5";
  const Snapshot whole = readSnapshotFile(named);
  const std::optional<SnapshotShare> share = readSnapshotShare(named);
  ASSERT_TRUE(share.has_value());
  ASSERT_EQ(share->total, whole.state.size());
  ASSERT_EQ(share->indices.size(), whole.state.size());
  for (std::size_t k = 0; k < share->indices.size(); ++k) EXPECT_EQ(share->indices[k], k);
  const State& rows = share->start.state;
  EXPECT_TRUE(sameBytes(rows.positionMass, whole.state.positionMass));
  EXPECT_TRUE(sameBytes(rows.velocity, whole.state.velocity));
  EXPECT_EQ(rows.id, whole.state.id);
  EXPECT_EQ(rows.component, whole.state.component);
  ASSERT_TRUE(share->start.radii && whole.radii);
  EXPECT_EQ(*share->start.radii, *whole.radii);
  EXPECT_EQ(share->start.time, whole.time);
  ASSERT_TRUE(share->start.units && whole.units);
  EXPECT_EQ(share->start.units->gravity, whole.units->gravity);
}

TEST(SnapshotShare, PartsWithStateIndexComeInOneFilesOrder) { expectTheWholesBodies(Damage::none); }

TEST(SnapshotShare, PartsWithoutStateIndexComeInTheFilesOrder) {
  expectTheWholesBodies(Damage::noStateIndex);
}

// The whole's order is not the state's where types interleave: the share puts them by type.
TEST(SnapshotShare, InterleavedTypesAreOrderedByTypeThenStateIndex) {
  ScratchFolder scratch("snapshot-share-order");
  const State state = interleavedState();
  writeParts(state, scratch, Damage::none);
  const std::optional<SnapshotShare> share = readSnapshotShare(scratch / "base.0.hdf5");
  ASSERT_TRUE(share.has_value());
  std::size_t row = 0;
  for (std::uint8_t type = 0; type < 3; ++type)
    for (std::size_t i = 0; i < state.size(); ++i)
      if (state.component[i] == type) {
        ASSERT_LT(row, share->start.state.size());
        EXPECT_EQ(share->start.state.id[row++], state.id[i]) << "state body " << i;
      }
}

// What reading the parts in `scratch` whole, then in a share, refused with.
std::pair<std::string, std::string> refusals(const ScratchFolder& scratch) {
  std::string whole, shared;
  try {
    readSnapshotFile(scratch / "base.0.hdf5");
  } catch (const std::runtime_error& e) {
    whole = e.what();
  }
  try {
    readSnapshotShare(scratch / "base.0.hdf5");
  } catch (const std::runtime_error& e) {
    shared = e.what();
  }
  return {whole, shared};
}

TEST(SnapshotShare, RefusesAStateIndexGivenTwiceOrBeyondAsTheWholesReaderDoes) {
  for (const auto& [damage, said] : {std::pair{Damage::stateIndexTwice, " twice"},
                                     std::pair{Damage::stateIndexBeyond, ", beyond the 50"}}) {
    ScratchFolder scratch("snapshot-share-refused");
    writeParts(interleavedState(), scratch, damage);
    const auto [whole, shared] = refusals(scratch);
    EXPECT_NE(whole.find(said), std::string::npos) << whole;
    EXPECT_EQ(shared, whole);
  }
}

// Other formats are read whole, as before: no share of them.
TEST(SnapshotShare, LeavesOtherFormatsToTheWholesReader) {
  ScratchFolder scratch("snapshot-share-csv");
  std::ofstream(scratch / "bodies.csv") << "x,y,z,mass,vx,vy,vz\n1,0,0,1,0,1,0\n-1,0,0,1,0,-1,0\n";
  EXPECT_FALSE(readSnapshotShare(scratch / "bodies.csv").has_value());
}

}  // namespace
}  // namespace nbody
