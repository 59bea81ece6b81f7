// GADGET-2 binary and GADGET HDF5: the real two-galaxy and gas-sphere files, every variant of the
// binary format as a writer independent of src/io makes it (tests/support/gadget_writer.h), round
// trips of every format with IDs and components, the units, and damaged files of both formats.
// What readers we did not write make of our files: tests/tools/formats_test.py.

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <algorithm>
#include <bit>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <tuple>

#include "io/byte_order.h"
#include "io/gadget.h"
#include "io/gadget_answer.h"
#include "io/gadget_binary.h"
#include "io/gadget_hdf5.h"
#include "io/isolated_call.h"
#include "io/output_file.h"
#include "io/snapshot.h"
#include "io/xdmf_index.h"
#include "physics/scenes.h"
#include "support/cli_runner.h"
#include "support/gadget_writer.h"
#include "support/test_support.h"

namespace nbody {
namespace {

using test::GadgetFile;
using test::GadgetWriter;
using test::ScratchFolder;

const std::filesystem::path kSamples = NBODY_GADGET_SAMPLES;

std::uint32_t littleU32(const std::string& bytes, std::size_t at) {
  std::uint32_t value = 0;
  for (int k = 0; k < 4; ++k)
    value |= std::uint32_t(static_cast<unsigned char>(bytes[at + k])) << (8 * k);
  return value;
}

float littleFloat(const std::string& bytes, std::size_t at) {
  return std::bit_cast<float>(littleU32(bytes, at));
}

TEST(GadgetSamples, TheTwoGalaxyFileLoadsWith60000BodiesInTwoComponents) {
  const std::filesystem::path path = kSamples / "galaxy_littleendian.dat";
  const std::string bytes = test::readWholeFile(path);
  const Snapshot snapshot = readSnapshotFile(path);
  ASSERT_EQ(snapshot.state.size(), 60000u);
  std::map<int, std::size_t> perComponent;
  for (std::size_t i = 0; i < snapshot.state.size(); ++i)
    ++perComponent[componentOf(snapshot.state, i)];
  EXPECT_EQ(perComponent, (std::map<int, std::size_t>{{1, 40000}, {2, 20000}}));
  // The MassTable's masses (header bytes 4 + 24 + 8 * type), every body of a type the same.
  for (std::size_t i : {std::size_t{0}, std::size_t{39999}})
    EXPECT_EQ(snapshot.state.positionMass[i].w,
              float(std::bit_cast<double>(std::uint64_t(littleU32(bytes, 36)) |
                                          std::uint64_t(littleU32(bytes, 40)) << 32)));
  EXPECT_EQ(snapshot.state.positionMass[59999].w, float(0.00023251971288118511));
  EXPECT_NEAR(totalMass(snapshot.state), 46.50, 0.005);
  // Bodies straight from the blocks: POS starts at 264 + 4, VEL at 720272 + 4, ID at 1440280 + 4.
  EXPECT_EQ(snapshot.state.positionMass[0].x, littleFloat(bytes, 268));
  EXPECT_EQ(snapshot.state.positionMass[59999].z, littleFloat(bytes, 268 + 720000 - 4));
  EXPECT_EQ(snapshot.state.velocity[59999].z, littleFloat(bytes, 720276 + 720000 - 4));
  EXPECT_EQ(bodyId(snapshot.state, 0), littleU32(bytes, 1440284));
  EXPECT_EQ(bodyId(snapshot.state, 59999), littleU32(bytes, 1440284 + 240000 - 4));
  EXPECT_EQ(snapshot.time, 0.0);
  ASSERT_TRUE(snapshot.units);
  EXPECT_NEAR(snapshot.units->gravity, 43007.1, 0.05);
}

TEST(GadgetSamples, TheGasSphereTakesItsMassesFromItsMassBlockAndSkipsItsGasBlocks) {
  const std::filesystem::path path = kSamples / "gassphere_littleendian.dat";
  const std::string bytes = test::readWholeFile(path);
  const Snapshot snapshot = readSnapshotFile(path);
  ASSERT_EQ(snapshot.state.size(), 1472u);
  // Records: header 264, POS 17672, VEL 17672, ID 5896; MASS's payload starts at 41504 + 4.
  for (std::size_t i : {std::size_t{0}, std::size_t{700}, std::size_t{1471}}) {
    EXPECT_EQ(componentOf(snapshot.state, i), 0) << i;
    EXPECT_EQ(snapshot.state.positionMass[i].w, littleFloat(bytes, 41508 + 4 * i)) << i;
  }
}

// Three gas bodies (MASS block), two halo bodies (MassTable) and one star (MASS block).
GadgetFile smallFile() {
  GadgetFile file;
  file.count = {3, 2, 0, 0, 1, 0};
  file.massTable = {0, 0.25, 0, 0, 0, 0};
  file.time = 1.5;
  file.total = {3, 2, 0, 0, 1, 0};
  for (int i = 0; i < 6; ++i) {
    for (int k = 0; k < 3; ++k) file.position.push_back(i + 0.125 * k);
    for (int k = 0; k < 3; ++k) file.velocity.push_back(-i - 0.5 * k);
    file.id.push_back(100 + 7 * std::uint64_t(i));
  }
  file.mass = {0.5, 0.75, 1.0, 2.0};
  return file;
}

void expectSmallFile(const Snapshot& snapshot, const std::string& what) {
  ASSERT_EQ(snapshot.state.size(), 6u) << what;
  const std::vector<float> masses{0.5f, 0.75f, 1.0f, 0.25f, 0.25f, 2.0f};
  const std::vector<int> components{0, 0, 0, 1, 1, 4};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(snapshot.state.positionMass[i],
              glm::vec4(float(i), float(i) + 0.125f, float(i) + 0.25f, masses[i]))
        << what;
    EXPECT_EQ(snapshot.state.velocity[i],
              glm::vec4(-float(i), -float(i) - 0.5f, -float(i) - 1.0f, 0.0f))
        << what;
    EXPECT_EQ(bodyId(snapshot.state, i), 100 + 7 * i) << what;
    EXPECT_EQ(componentOf(snapshot.state, i), components[i]) << what;
  }
  EXPECT_EQ(snapshot.time, 1.5) << what;
}

TEST(GadgetBinary, ReadsBothFormatsByteOrdersPrecisionsAndIdWidths) {
  for (const bool format2 : {false, true})
    for (const bool bigEndian : {false, true})
      for (const bool doubles : {false, true})
        for (const bool wideIds : {false, true}) {
          GadgetFile file = smallFile();
          file.format2 = format2, file.bigEndian = bigEndian, file.doubles = doubles,
          file.wideIds = wideIds;
          file.gasBlock = true;
          const std::string bytes = GadgetWriter().write(file);
          const std::string what = std::string(format2 ? "format 2" : "format 1") +
                                   (bigEndian ? " big" : " little") + (doubles ? " f64" : " f32") +
                                   (wideIds ? " u64" : " u32");
          ASSERT_TRUE(looksLikeGadgetBinary(bytes)) << what;
          expectSmallFile(parseGadgetBinary(bytes, "variant"), what);
        }
}

TEST(GadgetBinary, NoFileCountOrTotalsMeansThisFileHoldsEverything) {
  GadgetFile file = smallFile();
  file.fileCount = 0;
  file.total = {};
  expectSmallFile(parseGadgetBinary(GadgetWriter().write(file), "zeros"),
                  "num_files 0, npartTotal 0");
}

TEST(GadgetBinary, ReadsEveryFileOfASnapshotOfSeveral) {
  ScratchFolder scratch("gadget-files");
  GadgetFile first = smallFile(), second = smallFile();
  first.fileCount = second.fileCount = 2;
  first.total = second.total = {6, 4, 0, 0, 2, 0};
  for (std::uint64_t& id : second.id) id += 1000;
  std::ofstream(scratch / "snap.0", std::ios::binary) << GadgetWriter().write(first);
  const std::filesystem::path secondPath = scratch / "snap.1";
  try {
    readSnapshotFile(scratch / "snap.0");
    FAIL() << "read a snapshot whose second file is missing";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(secondPath.string()), std::string::npos) << e.what();
  }
  std::ofstream(secondPath, std::ios::binary) << GadgetWriter().write(second);
  const Snapshot all = readSnapshotFile(scratch / "snap.0");
  ASSERT_EQ(all.state.size(), 12u);
  EXPECT_EQ(bodyId(all.state, 6), 1100u);
  EXPECT_EQ(componentOf(all.state, 11), 4);
  EXPECT_THROW(parseGadgetBinary(GadgetWriter().write(first), "one of two"), std::runtime_error);
  second.total = {6, 4, 0, 0, 3, 0};  // claims one star more than the files hold
  first.total = second.total;
  std::ofstream(scratch / "snap.0", std::ios::binary) << GadgetWriter().write(first);
  EXPECT_THROW(readSnapshotFile(scratch / "snap.0"), std::runtime_error);
}

// Every accepted input gives sane bodies; every refused one a runtime_error naming the file.
void expectRefusedOrSane(const std::function<Snapshot()>& read, const std::string& source,
                         const std::string& what) {
  try {
    const Snapshot snapshot = read();
    EXPECT_NO_THROW(checkBodies(snapshot.state, source)) << what;
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(source + ": ", 0), 0u) << what << ": " << e.what();
  }
}

TEST(GadgetBinary, EveryTruncationAndEveryFlippedByteIsRefusedOrSane) {
  GadgetFile file = smallFile();
  file.format2 = true;
  const std::string bytes = GadgetWriter().write(file);
  for (std::size_t length = 0; length < bytes.size(); ++length)
    EXPECT_THROW(parseGadgetBinary(bytes.substr(0, length), "cut"), std::runtime_error) << length;
  for (std::size_t at = 0; at < bytes.size(); ++at)
    for (const int mask : {0x01, 0x80, 0xff}) {
      std::string damaged = bytes;
      damaged[at] = char(damaged[at] ^ mask);
      expectRefusedOrSane([&] { return parseGadgetBinary(damaged, "flipped"); }, "flipped",
                          std::to_string(at));
    }
}

struct BinaryDamage {
  std::string what;
  std::function<void(GadgetFile&)> apply;
  std::string expected;
};

class GadgetBinaryRefuses : public ::testing::TestWithParam<BinaryDamage> {};

TEST_P(GadgetBinaryRefuses, WithOneLineNamingTheFile) {
  GadgetFile file = smallFile();
  GetParam().apply(file);
  try {
    parseGadgetBinary(GadgetWriter().write(file), "hostile.dat");
    FAIL() << "accepted " << GetParam().what;
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("hostile.dat: ", 0), 0u) << message;
    EXPECT_NE(message.find(GetParam().expected), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Hostile, GadgetBinaryRefuses,
    ::testing::Values(
        BinaryDamage{"a huge count", [](GadgetFile& f) { f.count[1] = 0x7fffffff; },
                     "the POS block holds 72 bytes, not 6442450953 values"},
        BinaryDamage{"a negative count", [](GadgetFile& f) { f.count[2] = -5; },
                     "npart[2] is negative"},
        BinaryDamage{"a cosmology", [](GadgetFile& f) { f.omega0 = 0.3; }, "cosmological"},
        BinaryDamage{"a redshift", [](GadgetFile& f) { f.redshift = 2.0; }, "cosmological"},
        BinaryDamage{"no MASS block", [](GadgetFile& f) { f.mass.clear(); }, "no MASS block"},
        BinaryDamage{"a short MASS block", [](GadgetFile& f) { f.mass.pop_back(); },
                     "the MASS block holds"},
        BinaryDamage{"a NaN position", [](GadgetFile& f) { f.position[4] = std::nan(""); },
                     "not finite"},
        BinaryDamage{"totals that disagree", [](GadgetFile& f) { f.total[1] = 3; },
                     "claims 3 bodies of type 1"},
        BinaryDamage{"a negative MassTable", [](GadgetFile& f) { f.massTable[1] = -1; },
                     "MassTable[1]"},
        BinaryDamage{"no bodies", [](GadgetFile& f) { f = GadgetFile{}; }, "lists no bodies"}),
    [](const auto& param) {
      std::string name;
      for (char c : param.param.what) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

// A state of every component, with IDs that are not 1..N, in an order that mixes components.
Snapshot mixedSnapshot(double gravity) {
  Snapshot snapshot;
  snapshot.state = findScene("plummer")->generate(240, 5);
  for (std::size_t i = 0; i < snapshot.state.size(); ++i) {
    snapshot.state.component[i] = std::uint8_t((i * 7) % 6);
    snapshot.state.id[i] = (i % 3 == 0 ? (1ull << 40) : 1000) + 17 * i;
  }
  snapshot.time = 0.3125;
  snapshot.step = 12;
  snapshot.settings = RunSettings{"leapfrog", StepParams{0.01, 0.02, gravity}, 3};
  return snapshot;
}

Snapshot writtenAndRead(const Snapshot& snapshot, const std::string& name) {
  ScratchFolder scratch("round-trip");
  writeSnapshotFile(snapshot, scratch / name);
  return readSnapshotFile(scratch / name);
}

// `back` holds the bodies of `original` (found by ID), with positions and masses bit for bit and
// velocities within `velocityUlps` float32 ulps.
void expectSameBodiesById(const State& original, const State& back, int velocityUlps,
                          const std::string& what) {
  ASSERT_EQ(back.size(), original.size()) << what;
  std::map<std::uint64_t, std::size_t> byId;
  for (std::size_t i = 0; i < back.size(); ++i) byId[bodyId(back, i)] = i;
  for (std::size_t i = 0; i < original.size(); ++i) {
    ASSERT_TRUE(byId.count(bodyId(original, i))) << what << ": body " << i;
    const std::size_t j = byId[bodyId(original, i)];
    EXPECT_EQ(std::memcmp(&back.positionMass[j], &original.positionMass[i], sizeof(glm::vec4)), 0)
        << what << " " << i;
    EXPECT_EQ(componentOf(back, j), componentOf(original, i)) << what << " " << i;
    for (int k = 0; k < 3; ++k) {
      const float v = original.velocity[i][k], w = back.velocity[j][k];
      EXPECT_LE(std::abs(double(w) - double(v)), velocityUlps * std::abs(double(v)) * 0x1p-23)
          << what << " " << i;
    }
  }
}

TEST(FormatRoundTrips, NbodyAndCsvKeepEverythingBitForBit) {
  const Snapshot original = mixedSnapshot(1.0);
  for (const std::string name : {"r.nbody", "r.csv"})
    EXPECT_TRUE(test::sameBits(writtenAndRead(original, name).state, original.state)) << name;
}

TEST(FormatRoundTrips, GadgetHdf5GivesAGEqualsOneRunBackBitForBitInItsUnits) {
  const Snapshot original = mixedSnapshot(1.0);
  const Snapshot back = writtenAndRead(original, "r.hdf5");
  expectSameBodiesById(original.state, back.state, 0, "hdf5");
  EXPECT_EQ(back.time, original.time);
  ASSERT_TRUE(back.units);
  EXPECT_EQ(back.units->gravity, 1.0);
}

// File `file` of `snapshot` written in parts: the bodies `owner` gives it (interleaved, as the
// ranks of a decomposed run hold theirs), with their state indices and the snapshot's totals.
void writePart(const Snapshot& snapshot, int file, int files,
               const std::function<int(std::size_t)>& owner, const std::filesystem::path& path,
               bool withIndices = true,
               const std::function<std::uint64_t(std::size_t)>& indexOf = {}) {
  Snapshot part = snapshot;
  part.state = State{};
  if (part.radii) part.radii->clear();
  std::vector<std::uint64_t> indices;
  for (std::size_t i = 0; i < snapshot.state.size(); ++i) {
    if (owner(i) != file) continue;
    if (part.radii) part.radii->push_back((*snapshot.radii)[i]);
    part.state.positionMass.push_back(snapshot.state.positionMass[i]);
    part.state.velocity.push_back(snapshot.state.velocity[i]);
    part.state.id.push_back(bodyId(snapshot.state, i));
    part.state.component.push_back(componentOf(snapshot.state, i));
    indices.push_back(indexOf ? indexOf(i) : i);
  }
  GadgetBodies bodies = gadgetFromSnapshot(part, indices);
  if (!withIndices) bodies.stateIndex.clear();
  GadgetFileShare share = wholeSnapshotShare(gadgetFromSnapshot(snapshot));
  share.file = file;
  share.fileCount = files;
  std::ofstream(path, std::ios::binary) << gadgetHdf5PartImage(bodies, share);
}

// Parts' bodies, appended in file order, come out as one file holds them: by type, each type by
// state index. Against a sort of (type, state index, body) tuples: for the indices of a state
// (placed) and for indices with gaps (sorted), types mixed, the parts' order shuffled.
TEST(GadgetHdf5Parts, BodiesOfEveryPartGoInTheOrderOfOneFile) {
  for (const std::uint64_t gap : {1u, 3u}) {
    GadgetBodies bodies;
    std::mt19937_64 random(gap);
    std::vector<std::uint64_t> indices(1000);
    for (std::size_t i = 0; i < indices.size(); ++i) indices[i] = i * gap;
    std::shuffle(indices.begin(), indices.end(), random);
    std::vector<std::tuple<std::uint8_t, std::uint64_t, double>> expected;
    for (std::size_t i = 0; i < indices.size(); ++i) {
      const auto type = std::uint8_t(random() % 3 == 0 ? 4 : 1);
      const double x = double(i) + 0.5;
      bodies.position.insert(bodies.position.end(), {x, -x, 2 * x});
      bodies.velocity.insert(bodies.velocity.end(), {3 * x, 0.0, x});
      bodies.mass.push_back(x);
      bodies.id.push_back(i + 7);
      bodies.type.push_back(type);
      bodies.stateIndex.push_back(indices[i]);
      expected.emplace_back(type, indices[i], x);
    }
    std::sort(expected.begin(), expected.end());
    putPartsInStateOrder(bodies);
    for (std::size_t k = 0; k < expected.size(); ++k) {
      const auto [type, index, x] = expected[k];
      ASSERT_EQ(bodies.type[k], type) << k;
      ASSERT_EQ(bodies.stateIndex[k], index) << k;
      ASSERT_EQ(bodies.mass[k], x) << k;
      ASSERT_EQ(bodies.id[k], std::uint64_t(x - 0.5) + 7) << k;
      ASSERT_EQ(bodies.position[3 * k + 2], 2 * x) << k;
      ASSERT_EQ(bodies.velocity[3 * k], 3 * x) << k;
    }
  }
}

// A snapshot in three parts whose bodies interleave (the middle part holds none) reads back from
// any part as the one file of it: the same bodies in the same order, bit for bit.
TEST(GadgetHdf5Parts, ReadFromAnyPartAsTheOneFileOfTheSnapshot) {
  ScratchFolder scratch("hdf5-parts");
  Snapshot original = mixedSnapshot(1.0);
  original.radii.emplace();
  for (std::size_t i = 0; i < original.state.size(); ++i)
    original.radii->push_back(0.5 + double(i));
  writeSnapshotFile(original, scratch / "one.hdf5");
  const Snapshot one = readSnapshotFile(scratch / "one.hdf5");
  const auto owner = [](std::size_t i) { return i % 4 == 1 ? 0 : 2; };
  for (int file = 0; file < 3; ++file)
    writePart(original, file, 3, owner, gadgetPartPath(scratch / "snap.hdf5", file));
  EXPECT_EQ(gadgetPartPath("run/snap.hdf5", 2), std::filesystem::path("run/snap.2.hdf5"));
  for (int file = 0; file < 3; ++file) {
    const Snapshot back = readSnapshotFile(gadgetPartPath(scratch / "snap.hdf5", file));
    EXPECT_TRUE(test::sameBits(back.state, one.state)) << "from part " << file;
    EXPECT_EQ(back.radii, one.radii) << "from part " << file;
    EXPECT_EQ(back.time, one.time);
    EXPECT_EQ(back.doubles.has_value(), one.doubles.has_value());
  }
}

// A part written a slice at a time by name (writeGadgetHdf5Part, past one slice of 2^20 bodies)
// holds what the part's image in memory holds: the same bodies, bit for bit, in the same order.
TEST(GadgetHdf5Parts, WrittenASliceAtATimeHoldWhatTheImageHolds) {
  ScratchFolder scratch("hdf5-part-slices");
  Snapshot part = mixedSnapshot(1.0);
  const std::size_t bodies = (std::size_t(1) << 20) + 77;
  State& state = part.state;
  state = State{};
  std::vector<std::uint64_t> indices;
  for (std::size_t i = 0; i < bodies; ++i) {
    const float x = float(i) * 0x1p-20f;
    state.positionMass.emplace_back(x, -x, 0.5f * x, 1.0f + x);
    state.velocity.emplace_back(0.25f * x, x, -x, 0.0f);
    state.id.push_back(i % 5 == 0 ? (1ull << 40) + i : 3 * i + 1);
    state.component.push_back(std::uint8_t(i % 3 == 0 ? 4 : 1));
    indices.push_back(bodies - 1 - i);  // a whole snapshot, in the reverse of state order
  }
  part.radii = std::vector<double>(bodies, 0.125);
  const GadgetFileShare share{0, 1, {0, bodies - (bodies + 2) / 3, 0, 0, (bodies + 2) / 3, 0}};
  std::ofstream(scratch / "image.hdf5", std::ios::binary)
      << gadgetHdf5PartImage(gadgetFromSnapshot(part, indices), share);
  {
    OutputFile file(scratch / "sliced.hdf5");
    writeGadgetHdf5Part(part, indices, share, file);
    file.commit();
  }
  const Snapshot image = readSnapshotFile(scratch / "image.hdf5"),
                 sliced = readSnapshotFile(scratch / "sliced.hdf5");
  EXPECT_TRUE(test::sameBits(sliced.state, image.state));
  EXPECT_EQ(sliced.radii, image.radii);
  EXPECT_EQ(sliced.time, image.time);
  ASSERT_EQ(sliced.state.size(), bodies);
}

// Parts that cannot be one snapshot are refused, naming a file: one of another time (a part of
// another snapshot), state indices given twice.
TEST(GadgetHdf5Parts, PartsOfOtherSnapshotsOrOfOneBodyTwiceAreRefused) {
  ScratchFolder scratch("hdf5-parts-mixed");
  const Snapshot original = mixedSnapshot(1.0);
  Snapshot later = original;
  later.time += 1.0;
  const auto owner = [](std::size_t i) { return int(i % 2); };
  writePart(original, 0, 2, owner, scratch / "snap.0.hdf5");
  writePart(later, 1, 2, owner, scratch / "snap.1.hdf5");
  const auto refusal = [](const std::filesystem::path& path) -> std::string {
    try {
      readSnapshotFile(path);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "read";
  };
  EXPECT_NE(refusal(scratch / "snap.0.hdf5").find("snap.1.hdf5: its time is not"),
            std::string::npos);
  writePart(original, 1, 2, owner, scratch / "snap.1.hdf5", true,
            [](std::size_t i) { return i == 1 ? 0 : i; });
  EXPECT_NE(refusal(scratch / "snap.0.hdf5").find("StateIndex gives 0 twice"), std::string::npos)
      << refusal(scratch / "snap.0.hdf5");
}

// A part without the bodies' StateIndex among parts with it cannot be put in order: refused,
// naming it.
TEST(GadgetHdf5Parts, APartWithoutStateIndicesIsRefusedByName) {
  ScratchFolder scratch("hdf5-parts-unordered");
  const Snapshot original = mixedSnapshot(1.0);
  const auto owner = [](std::size_t i) { return int(i % 2); };
  writePart(original, 0, 2, owner, scratch / "snap.0.hdf5");
  writePart(original, 1, 2, owner, scratch / "snap.1.hdf5", false);
  try {
    readSnapshotFile(scratch / "snap.0.hdf5");
    ADD_FAILURE() << "read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("snap.1.hdf5 lacks the bodies' StateIndex"),
              std::string::npos)
        << e.what();
  }
}

TEST(FormatRoundTrips, GadgetBinaryGivesAGEqualsOneRunBackWithinAVelocityUlp) {
  const Snapshot original = mixedSnapshot(1.0);
  const Snapshot back = writtenAndRead(original, "r.gadget");
  expectSameBodiesById(original.state, back.state, 1, "gadget");
  EXPECT_EQ(back.time, original.time);
  EXPECT_EQ(back.units->gravity, 1.0);
}

TEST(FormatRoundTrips, ARunInGadgetUnitsComesBackBitForBitFromBothGadgetFormats) {
  const Snapshot original = mixedSnapshot(GadgetUnits{}.gravity());
  for (const std::string name : {"r.hdf5", "r.gadget"}) {
    const Snapshot back = writtenAndRead(original, name);
    expectSameBodiesById(original.state, back.state, 0, name);
    EXPECT_EQ(back.time, original.time) << name;
    EXPECT_EQ(back.units->gravity, GadgetUnits{}.gravity()) << name;
  }
}

// nbody's final state (a CSV) after `arguments`, run in `scratch`.
std::string finalStateAfter(const std::string& arguments, const ScratchFolder& scratch) {
  const auto result = test::runNbody("simulate --engine cpu -q --steps 4 --dt 0.001 " + arguments +
                                         " -o " + (scratch / "final.csv").string(),
                                     scratch);
  EXPECT_EQ(result.exitCode, 0) << arguments << ": " << result.err;
  return test::readWholeFile(scratch / "final.csv");
}

// A simulation started from a GADGET file is the one started from the same bodies as a CSV (which
// carries no units) under the G the file's units give, bit for bit; --gravity overrides the
// file's G as it overrides a snapshot's.
TEST(GadgetInputs, StartTheRunTheirCsvStartsUnderTheFilesGOrUnderGravityGiven) {
  ScratchFolder scratch("gadget-start");
  char fileGravity[64];
  std::snprintf(fileGravity, sizeof fileGravity, "%.17g", GadgetUnits{}.gravity());
  for (const std::string name : {"r.gadget", "r.hdf5"}) {
    const std::string file = (scratch / name).string(), csv = (scratch / (name + ".csv")).string();
    writeSnapshotFile(mixedSnapshot(GadgetUnits{}.gravity()), file);
    ASSERT_EQ(
        test::runNbody("simulate --engine cpu -q --steps 0 --input " + file + " -o " + csv, scratch)
            .exitCode,
        0);
    const std::string fromFile = finalStateAfter("--input " + file, scratch);
    EXPECT_EQ(fromFile, finalStateAfter("--input " + csv + " --gravity " + fileGravity, scratch))
        << name;
    const std::string givenG = finalStateAfter("--input " + file + " --gravity 1", scratch);
    EXPECT_EQ(givenG, finalStateAfter("--input " + csv + " --gravity 1", scratch)) << name;
    EXPECT_NE(givenG, fromFile) << name << ": --gravity 1 made no difference";
  }
}

// The same snapshot written twice, a second apart, is the same bytes in every format (HDF5 stamped
// each group and dataset with the time it was made).
TEST(FormatOutputs, TheSameSnapshotIsTheSameBytesWhenEverItIsWritten) {
  const Snapshot snapshot = mixedSnapshot(1.0);
  ScratchFolder scratch("same-bytes");
  for (const std::string name : {"a.nbody", "a.csv", "a.hdf5", "a.gadget", "a.tipsy", "a.std"}) {
    writeSnapshotFile(snapshot, scratch / ("1" + name));
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    writeSnapshotFile(snapshot, scratch / ("2" + name));
    EXPECT_TRUE(test::readWholeFile(scratch / ("1" + name)) ==
                test::readWholeFile(scratch / ("2" + name)))
        << name;
  }
}

TEST(FormatRoundTrips, TipsyKeepsBodiesByKindAndGasStarAndDarkComponents) {
  const Snapshot original = mixedSnapshot(1.0);
  for (const std::string name : {"r.tipsy", "r.std"}) {
    const Snapshot back = writtenAndRead(original, name);
    ASSERT_EQ(back.state.size(), original.state.size());
    std::size_t next = 0;
    for (const int kind : {0, 1, 4})  // gas, dark (every other component), stars
      for (std::size_t i = 0; i < original.state.size(); ++i) {
        const int component = componentOf(original.state, i);
        if ((component == 0 || component == 4 ? component : 1) != kind) continue;
        EXPECT_EQ(back.state.positionMass[next], original.state.positionMass[i]) << name;
        EXPECT_EQ(back.state.velocity[next], original.state.velocity[i]) << name;
        EXPECT_EQ(componentOf(back.state, next), kind) << name;
        EXPECT_EQ(bodyId(back.state, next), next + 1) << name;
        ++next;
      }
    EXPECT_EQ(back.time, original.time) << name;
  }
}

TEST(GadgetHdf5, EveryTruncationAndFlippedByteIsRefusedOrSaneWithoutACrash) {
  ScratchFolder scratch("hdf5-damage");
  writeSnapshotFile(mixedSnapshot(1.0), scratch / "good.hdf5");
  const std::string bytes = test::readWholeFile(scratch / "good.hdf5");
  const std::string source = (scratch / "bad.hdf5").string();
  for (std::size_t at = 0; at < bytes.size(); at += bytes.size() / 150 + 1) {
    std::string damaged = bytes;
    damaged[at] = char(damaged[at] ^ 0x5a);
    expectRefusedOrSane([&] { return parseGadgetHdf5(damaged, source); }, source,
                        "flip at " + std::to_string(at));
    expectRefusedOrSane([&] { return parseGadgetHdf5(bytes.substr(0, at), source); }, source,
                        "cut at " + std::to_string(at));
  }
}

TEST(GadgetHdf5, AnHdf5FileThatIsNoGadgetSnapshotIsRefusedByName) {
  ScratchFolder scratch("hdf5-other");
  writeSnapshotFile(mixedSnapshot(1.0), scratch / "good.hdf5");
  std::string bytes = test::readWholeFile(scratch / "good.hdf5");
  const auto header = bytes.find("Header");
  ASSERT_NE(header, std::string::npos);
  bytes.replace(header, 6, "Hxader");
  try {
    parseGadgetHdf5(bytes, "other.hdf5");
    FAIL() << "read an HDF5 file without /Header";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("other.hdf5: ", 0), 0u) << e.what();
  }
}

// A file of numbers little-endian: what a stored run reads.
struct NumbersFile {
  bytes::Writer out{bytes::Order::little};
  template <typename T>
  std::uint64_t put(std::initializer_list<T> values) {  // the first's offset
    const std::uint64_t at = out.bytes().size();
    for (const T value : values) out.put(value);
    return at;
  }
};

// A part whose lists come as every kind of run (stored in each of the four numbers, given,
// repeated; a list of two runs) back as the values they describe, each bit, and its facts.
TEST(GadgetAnswer, GivenStoredAndRepeatedRunsComeBackAsTheListsTheyDescribe) {
  const float tiny = std::bit_cast<float>(0x00000321u), huge = 3.0e38f;  // a subnormal, a large
  NumbersFile file;
  file.out.putBytes("junk");
  const std::uint64_t positions = file.put<float>({1.5f, -0.0f, tiny, huge, -2.25f, 0.1f});
  const std::uint64_t velocities = file.put<double>({0.1, -1e-310, 7.0});
  const std::uint64_t ids = file.put<std::uint32_t>({0xFFFFFFFFu, 3u});
  const std::uint64_t indices = file.put<std::uint64_t>({~std::uint64_t{0}, 5u});
  GadgetPartWriter answer;
  answer.stored(GadgetList::position, StoredNumbers::f32, 6, positions);
  answer.given(GadgetList::velocity, std::vector<double>{4.0, 5.0, -6.0});
  answer.stored(GadgetList::velocity, StoredNumbers::f64, 3, velocities);
  answer.stored(GadgetList::id, StoredNumbers::u32, 2, ids);
  answer.repeated(GadgetList::mass, 2, 0.125);
  answer.given(GadgetList::type, std::vector<std::uint8_t>{1, 4});
  answer.stored(GadgetList::stateIndex, StoredNumbers::u64, 2, indices);
  EXPECT_EQ(answer.values(GadgetList::velocity), 6u);
  GadgetPart facts;
  facts.bodies.time = 0.75;
  facts.bodies.units.massInG = 3e33;
  facts.bodies.record = GadgetRunRecord{2.0, 0.5};
  facts.fileCount = 3;
  facts.totals[4] = 1ull << 40;
  const std::string bytes = std::move(answer).finish(facts);
  const GadgetPart part = gadgetPartOfBytes(bytes, "a.hdf5", file.out.bytes());
  const GadgetBodies& b = part.bodies;
  const auto bits = [](const std::vector<double>& values) {
    std::vector<std::uint64_t> out;
    for (const double value : values) out.push_back(std::bit_cast<std::uint64_t>(value));
    return out;
  };
  EXPECT_EQ(bits(b.position), bits({1.5, -0.0, double(tiny), double(huge), -2.25, double(0.1f)}));
  EXPECT_EQ(bits(b.velocity), bits({4.0, 5.0, -6.0, 0.1, -1e-310, 7.0}));
  EXPECT_EQ(b.id, (std::vector<std::uint64_t>{0xFFFFFFFFu, 3u}));
  EXPECT_EQ(b.mass, (std::vector<double>{0.125, 0.125}));
  EXPECT_EQ(b.type, (std::vector<std::uint8_t>{1, 4}));
  EXPECT_TRUE(b.radius.empty());
  EXPECT_EQ(b.stateIndex, (std::vector<std::uint64_t>{~std::uint64_t{0}, 5u}));
  EXPECT_EQ(b.time, 0.75);
  EXPECT_EQ(b.units.massInG, 3e33);
  ASSERT_TRUE(b.record);
  EXPECT_EQ(b.record->gravity, 2.0);
  EXPECT_EQ(b.record->time, 0.5);
  EXPECT_EQ(part.fileCount, 3);
  EXPECT_EQ(part.totals[4], 1ull << 40);
  EXPECT_EQ(gadgetPartBytes(part), gadgetPartBytes(gadgetPartOfBytes(gadgetPartBytes(part), "b")));
  // Its first body alone: what firstBodyOnly keeps of the whole.
  EXPECT_EQ(gadgetPartBytes(gadgetPartOfBytes(bytes, "a.hdf5", file.out.bytes(), 1)),
            gadgetPartBytes(firstBodyOnly(part)));
}

// An answer no reader gives: a run past the file's end, a list stored in another list's numbers,
// lists of no one count of bodies, a type past a byte, bytes cut anywhere. Each one is refused as
// garbled, before anything is allocated for it.
TEST(GadgetAnswer, AnAnswerPastItsFileOrOfOtherNumbersOrCountsIsRefused) {
  NumbersFile file;
  const std::uint64_t reals = file.put<double>({1.0, 2.0, 3.0, 4.0, 5.0, 6.0});
  const auto answer = [](const std::function<void(GadgetPartWriter&)>& runs) {
    GadgetPartWriter out;
    runs(out);
    return std::move(out).finish(GadgetPart{});
  };
  const auto oneBody = [&](GadgetPartWriter& out) {
    out.stored(GadgetList::position, StoredNumbers::f64, 3, reals);
    out.stored(GadgetList::velocity, StoredNumbers::f64, 3, reals + 24);
    out.repeated(GadgetList::mass, 1, 1.0);
    out.repeated(GadgetList::id, 1, std::uint64_t{7});
    out.repeated(GadgetList::type, 1, std::uint64_t{1});
  };
  const std::string good = answer(oneBody);
  EXPECT_EQ(gadgetPartOfBytes(good, "g", file.out.bytes()).bodies.position[2], 3.0);
  const std::map<std::string, std::string> bad = {
      {"past the file's end", answer([&](GadgetPartWriter& out) {
         oneBody(out);
         out.stored(GadgetList::radius, StoredNumbers::f64, 1, reals + 48);
       })},
      {"stored as integers", answer([&](GadgetPartWriter& out) {
         out.stored(GadgetList::position, StoredNumbers::u64, 3, reals);
         out.stored(GadgetList::velocity, StoredNumbers::f64, 3, reals);
         out.repeated(GadgetList::mass, 1, 1.0), out.repeated(GadgetList::id, 1, std::uint64_t{7});
         out.repeated(GadgetList::type, 1, std::uint64_t{1});
       })},
      {"a second mass", answer([&](GadgetPartWriter& out) {
         oneBody(out);
         out.repeated(GadgetList::mass, 1, 1.0);
       })},
      {"more bodies than bytes", answer([&](GadgetPartWriter& out) {
         out.repeated(GadgetList::position, 3000, 1.0),
             out.repeated(GadgetList::velocity, 3000, 1.0);
         out.repeated(GadgetList::mass, 1000, 1.0),
             out.repeated(GadgetList::id, 1000, std::uint64_t{1});
         out.repeated(GadgetList::type, 1000, std::uint64_t{1});
       })},
      {"a type past a byte", answer([&](GadgetPartWriter& out) {
         oneBody(out);
         out.repeated(GadgetList::type, 0, std::uint64_t{256});
       })}};
  for (const auto& [what, bytes] : bad)
    EXPECT_THROW(gadgetPartOfBytes(bytes, "g", file.out.bytes()), std::logic_error) << what;
  for (std::size_t cut = 0; cut < good.size(); ++cut)
    EXPECT_THROW(gadgetPartOfBytes(good.substr(0, cut), "g", file.out.bytes()), std::logic_error)
        << cut;
  EXPECT_THROW(gadgetPartOfBytes(good, "g", file.out.bytes().substr(0, 47)), std::logic_error);
}

// A file nbody wrote (contiguous, unfiltered datasets) comes back from the reader's child as where
// its values lie, not as the values (a few hundred bytes for 20000 bodies, not 73 B a body), and
// the values read from there are the ones written: float32 and float64, u32 and u64 IDs.
TEST(GadgetHdf5, AFileStoredAsItIsIsReadInPlaceAsWritten) {
  for (const bool wide : {false, true}) {
    GadgetBodies bodies;
    bodies.doublePrecision = wide;
    for (std::size_t i = 0; i < 20000; ++i) {
      const double x = 0.1 * double(i) - 7.0;
      bodies.position.insert(bodies.position.end(), {x, x * x, -x});
      bodies.velocity.insert(bodies.velocity.end(), {1.0 / (x + 0.05), 2.0, x});
      bodies.mass.push_back(1e-3 + double(i % 7));
      bodies.id.push_back(wide ? (1ull << 40) + i : i + 3);
      bodies.type.push_back(std::uint8_t(i % 3 == 0 ? 4 : 1));
    }
    std::stable_sort(bodies.type.begin(), bodies.type.end());  // a file holds them by type
    const std::string image = gadgetHdf5Image(bodies);
    EXPECT_LT(gadgetHdf5Answer(image, "in.hdf5").size(), 1000u);
    const GadgetBodies back = readGadgetHdf5File(image, "in.hdf5").bodies;
    const auto asWritten = [wide](std::vector<double> values) {
      for (double& value : values) value = wide ? value : double(float(value));
      return values;
    };
    EXPECT_EQ(back.position, asWritten(bodies.position)) << wide;
    EXPECT_EQ(back.velocity, asWritten(bodies.velocity)) << wide;
    EXPECT_EQ(back.mass, asWritten(bodies.mass)) << wide;
    EXPECT_EQ(back.id, bodies.id) << wide;
    EXPECT_EQ(back.type, bodies.type) << wide;
  }
}

// What the HDF5 reader's child process gives back: its answer, its error, or one line for a crash
// or an allocation that failed.
TEST(IsolatedCall, AnswersRefusalsCrashesAndExhaustedMemoryComeBackAsOneLine) {
  EXPECT_EQ(
      callIsolated([] { return std::string("answer\0bytes", 12); }, "f.hdf5", "lib", 1ull << 34),
      std::string("answer\0bytes", 12));
  // Many times what a pipe holds at once, each byte where it was.
  std::string large(5'000'011, '\0');
  for (std::size_t i = 0; i < large.size(); ++i) large[i] = char((i * 2654435761u) >> 13);
  EXPECT_TRUE(callIsolated([&] { return large; }, "f.hdf5", "lib", 1ull << 34) == large);
  EXPECT_EQ(callIsolated([] { return std::string(); }, "f.hdf5", "lib", 1ull << 34), "");
  const auto messageOf = [](const std::function<std::string()>& work) {
    try {
      callIsolated(work, "f.hdf5", "the library", 1ull << 34);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(messageOf([]() -> std::string { throw std::runtime_error("f.hdf5: refused"); }),
            "f.hdf5: refused");
  const std::string crash = messageOf([]() -> std::string {
    std::raise(SIGSEGV);
    return {};
  });
  // Under AddressSanitizer its SEGV handler ends the child with SIGABRT or a status instead.
  EXPECT_TRUE(crash.rfind("f.hdf5: the library crashed reading it (signal ", 0) == 0 ||
              crash.rfind("f.hdf5: the library ended without an answer", 0) == 0)
      << crash;
  const std::string memory = messageOf([]() -> std::string { throw std::bad_alloc(); });
  EXPECT_EQ(memory.rfind("f.hdf5: reading it takes more than", 0), 0u) << memory;
}

TEST(XdmfIndex, IsNamedAfterThePatternAndListsEveryTypeOfEverySnapshot) {
  EXPECT_EQ(xdmfIndexPathFor("run/step-{step}.hdf5"), std::filesystem::path("run/step.xmf"));
  EXPECT_EQ(xdmfIndexPathFor("{step}.hdf5"), std::filesystem::path("snapshots.xmf"));
  EXPECT_EQ(xdmfIndexPathFor("a_{step}_b.hdf5"), std::filesystem::path("a-b.xmf"));
  // A folder for each snapshot: the index goes where every snapshot's folder is, not into one.
  EXPECT_EQ(xdmfIndexPathFor("run/f-{step}/s.hdf5"), std::filesystem::path("run/s.xmf"));
  EXPECT_EQ(xdmfIndexPathFor("/r/{step}/x/s-{step}.hdf5"), std::filesystem::path("/r/s.xmf"));
  EXPECT_EQ(
      xdmfEntryFor("run/f-000000001/s.hdf5", "run/s.xmf", gadgetFromSnapshot(mixedSnapshot(1.0)))
          .file,
      "f-000000001/s.hdf5");
  const GadgetBodies bodies = gadgetFromSnapshot(mixedSnapshot(1.0));
  const std::string text = xdmfIndexText({xdmfEntryFor("run/s-1.hdf5", "run/s.xmf", bodies)});
  for (int type = 0; type < kGadgetTypes; ++type)
    EXPECT_NE(text.find("s-1.hdf5:/PartType" + std::to_string(type) + "/Coordinates"),
              std::string::npos)
        << type;
  EXPECT_NE(text.find("NumberType=\"UInt\" Precision=\"8\""),
            std::string::npos);  // IDs beyond 2^32
}

}  // namespace
}  // namespace nbody
