// Snapshots: round trips in both formats, the binary layout byte by byte, every way a damaged file
// is refused, TIPSY import in both byte orders, and how the format of an input is recognised.

#include "io/snapshot.h"

#include <gtest/gtest.h>

#include <bit>
#include <cctype>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

#include "io/binary_snapshot.h"
#include "io/csv.h"
#include "io/tipsy.h"
#include "physics/external_potential.h"
#include "physics/scenes.h"
#include "support/cli_runner.h"
#include "support/test_support.h"
#include "support/tipsy_writer.h"

namespace nbody {
namespace {

using test::sameBits;
using test::ScratchFolder;

Snapshot sampleSnapshot(std::size_t bodies = 300) {
  Snapshot snapshot;
  snapshot.state = findScene("plummer")->generate(bodies, 9);
  snapshot.time = 0.123456789;
  snapshot.step = 1234567890123LL;
  RunSettings& settings = snapshot.settings.emplace();
  settings.method = "rk4";
  settings.step.dt = 1.0 / 3.0;
  settings.step.softening = 0.0125;
  settings.step.gravity = 0.7;
  settings.seed = 0xfedcba9876543210ull;
  return snapshot;
}

std::string binaryOf(const Snapshot& snapshot) {
  std::ostringstream out;
  writeBinarySnapshot(snapshot, out);
  return out.str();
}

std::uint64_t littleEndianAt(const std::string& bytes, std::size_t offset, int size) {
  std::uint64_t value = 0;
  for (int k = 0; k < size; ++k)
    value |= std::uint64_t(static_cast<unsigned char>(bytes[offset + k])) << (8 * k);
  return value;
}

void putLittleEndianAt(std::string& bytes, std::size_t offset, std::uint64_t value, int size) {
  for (int k = 0; k < size; ++k) bytes[offset + k] = char((value >> (8 * k)) & 0xFF);
}

// Rewrites the checksum, so that a test reaches the check after it.
void resealed(std::string& bytes) {
  putLittleEndianAt(bytes, bytes.size() - 8,
                    fnv1a64(std::string_view(bytes).substr(0, bytes.size() - 8)), 8);
}

TEST(BinarySnapshot, ChecksumIsFnv1a64) {  // the published test vectors
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ull);
}

TEST(BinarySnapshot, RoundTripsStateAndSettingsExactly) {
  Snapshot original = sampleSnapshot();
  original.state.velocity[5].x = -0.0f;  // the sign of zero survives too
  const Snapshot back = parseBinarySnapshot(binaryOf(original), "test");
  EXPECT_TRUE(sameBits(back.state, original.state));
  EXPECT_EQ(back.time, original.time);
  EXPECT_EQ(back.step, original.step);
  ASSERT_TRUE(back.settings);
  EXPECT_EQ(back.settings->method, "rk4");
  EXPECT_EQ(back.settings->step.dt, 1.0 / 3.0);
  EXPECT_EQ(back.settings->step.softening, 0.0125);
  EXPECT_EQ(back.settings->step.gravity, 0.7);
  EXPECT_EQ(back.settings->seed, 0xfedcba9876543210ull);
}

TEST(BinarySnapshot, HasTheDocumentedLittleEndianLayout) {
  Snapshot snapshot = sampleSnapshot(3);
  snapshot.state.id = {7, 0xfedcba9876543210ull, 9};
  snapshot.state.component = {1, 5, 0};
  const std::string bytes = binaryOf(snapshot);
  ASSERT_EQ(bytes.size(), 112u + 37u * 3u);
  EXPECT_EQ(bytes.substr(0, 8), "NBODYSNP");
  EXPECT_EQ(littleEndianAt(bytes, 8, 4), 2u);   // version
  EXPECT_EQ(littleEndianAt(bytes, 16, 8), 3u);  // N
  EXPECT_EQ(littleEndianAt(bytes, 24, 8), std::bit_cast<std::uint64_t>(snapshot.time));
  EXPECT_EQ(littleEndianAt(bytes, 32, 8), std::uint64_t(snapshot.step));
  EXPECT_EQ(bytes.substr(40, 32), std::string("rk4") + std::string(29, '\0'));
  EXPECT_EQ(littleEndianAt(bytes, 72, 8), std::bit_cast<std::uint64_t>(1.0 / 3.0));
  EXPECT_EQ(littleEndianAt(bytes, 80, 8), std::bit_cast<std::uint64_t>(0.0125));
  EXPECT_EQ(littleEndianAt(bytes, 88, 8), std::bit_cast<std::uint64_t>(0.7));
  EXPECT_EQ(littleEndianAt(bytes, 96, 8), 0xfedcba9876543210ull);
  // Body 2's mass is the 4th float of its position block; body 1's vz the 3rd of its velocity.
  EXPECT_EQ(littleEndianAt(bytes, 104 + 16 * 2 + 12, 4),
            std::bit_cast<std::uint32_t>(snapshot.state.positionMass[2].w));
  EXPECT_EQ(littleEndianAt(bytes, 104 + 16 * 3 + 12 * 1 + 8, 4),
            std::bit_cast<std::uint32_t>(snapshot.state.velocity[1].z));
  // Body 1's ID after the velocities; body 1's component after the IDs.
  EXPECT_EQ(littleEndianAt(bytes, 104 + 28 * 3 + 8 * 1, 8), 0xfedcba9876543210ull);
  EXPECT_EQ(littleEndianAt(bytes, 104 + 36 * 3 + 1, 1), 5u);
  EXPECT_EQ(littleEndianAt(bytes, bytes.size() - 8, 8),
            fnv1a64(std::string_view(bytes).substr(0, bytes.size() - 8)));
}

TEST(BinarySnapshot, WritingNeedsSettingsAndAShortMethodName) {
  Snapshot snapshot = sampleSnapshot(2);
  snapshot.settings->method = std::string(33, 'x');
  EXPECT_THROW(binaryOf(snapshot), std::invalid_argument);
  snapshot.settings.reset();
  EXPECT_THROW(binaryOf(snapshot), std::invalid_argument);
}

struct Damage {
  std::string what;
  std::function<void(std::string&)> apply;
  std::string expectedInMessage;
};

class BinarySnapshotRefuses : public ::testing::TestWithParam<Damage> {};

TEST_P(BinarySnapshotRefuses, WithAMessageNamingTheProblem) {
  std::string bytes = binaryOf(sampleSnapshot(10));
  GetParam().apply(bytes);
  try {
    parseBinarySnapshot(bytes, "damaged.nbody");
    FAIL() << "accepted a file with " << GetParam().what;
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_TRUE(message.starts_with("damaged.nbody: ")) << message;
    EXPECT_NE(message.find(GetParam().expectedInMessage), std::string::npos) << message;
  }
}

constexpr std::size_t kFirstVelocity = 104 + 16 * 10;

INSTANTIATE_TEST_SUITE_P(
    DamagedFiles, BinarySnapshotRefuses,
    ::testing::Values(
        Damage{"a wrong magic", [](std::string& b) { b[3] = 'X'; }, "wrong magic"},
        Damage{"another version", [](std::string& b) { putLittleEndianAt(b, 8, 5, 4); },
               "unsupported version 5 (this build reads versions 1 to 4)"},
        Damage{"version 4 shorter than its radii",
               [](std::string& b) { putLittleEndianAt(b, 8, 4, 4); }, "truncated, or N is wrong"},
        Damage{"version 3 without its potential",
               [](std::string& b) { putLittleEndianAt(b, 8, 3, 4); },
               "an external potential of 0 bytes"},
        Damage{"version 3 shorter than its potential",
               [](std::string& b) {
                 putLittleEndianAt(b, 8, 3, 4);
                 putLittleEndianAt(b, 12, 4096, 4);
               },
               "truncated"},
        Damage{"a component of 6",
               [](std::string& b) {
                 b[b.size() - 8 - 1] = 6;
                 resealed(b);
               },
               "body 9: component 6 is not one of 0 to 5"},
        Damage{"a cut header", [](std::string& b) { b.resize(50); }, "truncated"},
        Damage{"a cut payload", [](std::string& b) { b.resize(b.size() - 20); }, "truncated"},
        Damage{"no checksum", [](std::string& b) { b.resize(b.size() - 8); }, "truncated"},
        Damage{"an N larger than the file", [](std::string& b) { putLittleEndianAt(b, 16, 11, 8); },
               "claims 11 bodies"},
        Damage{"an absurd N", [](std::string& b) { putLittleEndianAt(b, 16, ~0ull, 8); },
               "truncated, or N is wrong"},
        Damage{"bytes after the checksum", [](std::string& b) { b += "xyz"; }, "3 extra bytes"},
        Damage{"a flipped payload bit", [](std::string& b) { b[kFirstVelocity + 5] ^= 0x10; },
               "checksum mismatch"},
        Damage{"a flipped header bit", [](std::string& b) { b[75] ^= 0x01; }, "checksum mismatch"},
        Damage{"a NaN velocity",
               [](std::string& b) {
                 putLittleEndianAt(
                     b, kFirstVelocity + 12 * 4,
                     std::bit_cast<std::uint32_t>(std::numeric_limits<float>::quiet_NaN()), 4);
                 resealed(b);
               },
               "body 4: velocity is not finite"},
        Damage{"an infinite position",
               [](std::string& b) {
                 putLittleEndianAt(
                     b, 104 + 16 * 7 + 4,
                     std::bit_cast<std::uint32_t>(std::numeric_limits<float>::infinity()), 4);
                 resealed(b);
               },
               "body 7: position or mass is not finite"},
        Damage{"a negative mass",
               [](std::string& b) {
                 putLittleEndianAt(b, 104 + 12, std::bit_cast<std::uint32_t>(-1.0f), 4);
                 resealed(b);
               },
               "body 0: negative mass"},
        Damage{"a zero dt",
               [](std::string& b) {
                 putLittleEndianAt(b, 72, 0, 8);
                 resealed(b);
               },
               "dt must be finite and > 0"},
        Damage{"a NaN time",
               [](std::string& b) {
                 putLittleEndianAt(b, 24, std::bit_cast<std::uint64_t>(std::nan("")), 8);
                 resealed(b);
               },
               "time is not finite"}),
    [](const auto& param) {
      std::string name;
      for (char c : param.param.what) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

Snapshot readBack(const Snapshot& snapshot, const std::string& fileName) {
  ScratchFolder scratch("snapshot-file");
  writeSnapshotFile(snapshot, scratch / fileName);
  return readSnapshotFile(scratch / fileName);
}

TEST(SnapshotFile, CsvRoundTripsTheStateExactly) {
  const Snapshot original = sampleSnapshot();
  const Snapshot back = readBack(original, "state.csv");
  EXPECT_TRUE(sameBits(back.state, original.state));
  EXPECT_FALSE(back.settings) << "CSV carries the state only";
}

// Radii of no float32's value (1/3, 0.1) and 0, with and without IDs and a potential's text.
std::vector<double> sampleRadii(std::size_t bodies) {
  std::vector<double> radii;
  for (std::size_t i = 0; i < bodies; ++i)
    radii.push_back(i % 3 == 0 ? 0.0 : double(i) / 3.0 + 0.1);
  return radii;
}

TEST(SnapshotFile, CsvNbodyAndHdf5FilesKeepEachBodysRadiusExactly) {
  for (const bool identified : {false, true})
    for (const std::string file : {"radii.csv", "radii.nbody", "radii.hdf5"}) {
      Snapshot original = sampleSnapshot(30);
      if (identified) original.state.id[4] = 1u << 20;
      original.radii = sampleRadii(30);
      const Snapshot back = readBack(original, file);
      EXPECT_TRUE(sameBits(back.state, original.state)) << file;
      ASSERT_TRUE(back.radii) << file;
      EXPECT_EQ(*back.radii, *original.radii) << file;
      original.radii.reset();
      EXPECT_FALSE(readBack(original, file).radii) << file << ": radii where there were none";
    }
}

TEST(SnapshotFile, ARadiusColumnHasTheDocumentedHeaderAndRefusesWhatIsNoRadius) {
  Snapshot snapshot = sampleSnapshot(2);
  snapshot.radii = {0.5, 0.25};
  std::ostringstream text;
  writeSnapshot(snapshot, SnapshotFormat::csv, text);
  EXPECT_EQ(text.str().substr(0, text.str().find('\n')), "x,y,z,mass,vx,vy,vz,radius");
  for (const std::string bad : {"-1", "nan", "inf", "x", ""}) {
    std::istringstream csv("x,y,z,mass,vx,vy,vz,radius\n0,0,0,1,0,0,0,1\n1,0,0,1,0,0,0," + bad +
                           "\n");
    try {
      readStateCsv(csv, "r.csv");
      FAIL() << "took the radius '" << bad << "'";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("r.csv:3: column radius"), std::string::npos)
          << e.what();
    }
  }
  std::istringstream wrongOrder("x,y,z,mass,vx,vy,vz,radius,id,component\n0,0,0,1,0,0,0,1,1,0\n");
  EXPECT_THROW(readStateCsv(wrongOrder, "r.csv"), std::runtime_error);
}

TEST(BinarySnapshot, Version4PutsTheRadiiAfterTheComponentsAndThePotentialAfterThem) {
  Snapshot snapshot = sampleSnapshot(3);
  snapshot.radii = {0.5, 0.0, 1.0 / 3.0};
  std::string bytes = binaryOf(snapshot);
  ASSERT_EQ(bytes.size(), 112u + 45u * 3u);
  EXPECT_EQ(littleEndianAt(bytes, 8, 4), 4u);   // version
  EXPECT_EQ(littleEndianAt(bytes, 12, 4), 0u);  // no potential
  EXPECT_EQ(littleEndianAt(bytes, 104 + 37 * 3 + 8 * 2, 8),
            std::bit_cast<std::uint64_t>(1.0 / 3.0));
  snapshot.settings->step.potential = std::make_shared<const ExternalPotential>(
      ExternalPotential::parse("point:mass=1", snapshot.settings->step.gravity));
  const Snapshot back = parseBinarySnapshot(binaryOf(snapshot), "v4.nbody");
  ASSERT_TRUE(back.radii && back.settings->step.potential);
  EXPECT_EQ(*back.radii, *snapshot.radii);
  EXPECT_EQ(back.settings->step.potential->spec(), snapshot.settings->step.potential->spec());
  putLittleEndianAt(bytes, 104 + 37 * 3 + 8, std::bit_cast<std::uint64_t>(-1.0), 8);
  resealed(bytes);
  try {
    parseBinarySnapshot(bytes, "v4.nbody");
    FAIL() << "took a negative radius";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("v4.nbody: body 1's radius is -1"), std::string::npos)
        << e.what();
  }
}

TEST(SnapshotFile, PicksTheBinaryFormatByExtensionAndReadsItByItsMagic) {
  const Snapshot original = sampleSnapshot();
  ScratchFolder scratch("by-extension");
  writeSnapshotFile(original, scratch / "run.NBODY");
  EXPECT_EQ(test::readWholeFile(scratch / "run.NBODY").substr(0, 8), "NBODYSNP");
  std::filesystem::rename(scratch / "run.NBODY", scratch / "renamed.csv");  // the magic wins
  const Snapshot back = readSnapshotFile(scratch / "renamed.csv");
  EXPECT_TRUE(sameBits(back.state, original.state));
  EXPECT_TRUE(back.settings);
}

TEST(SnapshotFile, WritingLeavesNoTemporaryFileBehind) {
  ScratchFolder scratch("no-leftovers");
  writeSnapshotFile(sampleSnapshot(), scratch / "a.nbody");
  Snapshot broken = sampleSnapshot();
  broken.settings.reset();
  EXPECT_THROW(writeSnapshotFile(broken, scratch / "b.nbody"), std::invalid_argument);
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(scratch.path()))
    names.push_back(entry.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"a.nbody"});
}

TEST(BinarySnapshot, AVersion1FileStillLoadsAsBodies1ToNOfTheDefaultComponent) {
  // Version 1 as nbody wrote it before IDs and components: the version 2 file less its two lists,
  // with version 1 and the checksum of what is left.
  Snapshot snapshot = sampleSnapshot(4);
  snapshot.state.id = {11, 12, 13, 14};
  snapshot.state.component = {2, 2, 3, 3};
  std::string bytes = binaryOf(snapshot);
  bytes.resize(104 + 28 * 4);
  putLittleEndianAt(bytes, 8, 1, 4);
  bytes.append(8, '\0');
  resealed(bytes);
  const Snapshot back = parseBinarySnapshot(bytes, "old.nbody");
  State expected = snapshot.state;
  expected.id = {1, 2, 3, 4};
  expected.component.assign(4, kDefaultComponent);
  EXPECT_TRUE(sameBits(back.state, expected));
  EXPECT_EQ(back.settings->method, "rk4");
}

TEST(BinarySnapshot, RoundTripsIdsAndComponents) {
  Snapshot snapshot = sampleSnapshot(5);
  snapshot.state.id = {5, 4, 1ull << 40, 2, 1};
  snapshot.state.component = {0, 1, 2, 3, 5};
  const Snapshot back = parseBinarySnapshot(binaryOf(snapshot), "ids.nbody");
  EXPECT_EQ(back.state.id, snapshot.state.id);
  EXPECT_EQ(back.state.component, snapshot.state.component);
}

TEST(SnapshotFile, ADamagedBinaryFileIsReportedUnderItsName) {
  ScratchFolder scratch("damaged-file");
  std::string bytes = binaryOf(sampleSnapshot());
  bytes.resize(bytes.size() / 2);
  std::ofstream(scratch / "half.nbody", std::ios::binary) << bytes;
  try {
    readSnapshotFile(scratch / "half.nbody");
    FAIL() << "accepted half a snapshot";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("half.nbody: truncated"), std::string::npos) << e.what();
  }
}

const std::vector<test::TipsyParticle> kGas{{0.5f, 1, 2, 3, 4, 5, 6}};
const std::vector<test::TipsyParticle> kDark{{0.25f, -1, -2, -3, 0.5f, 0.25f, 0.125f},
                                             {0.125f, 7, 8, 9, -4, -5, -6}};
const std::vector<test::TipsyParticle> kStars{{2.0f, 0.1f, 0.2f, 0.3f, 0, 0, -1e-3f}};

void expectTipsyParticles(const Snapshot& snapshot) {
  ASSERT_EQ(snapshot.state.size(), 4u);
  EXPECT_EQ(snapshot.time, 0.75);
  EXPECT_FALSE(snapshot.settings);
  // Gas, dark, stars, in file order.
  EXPECT_EQ(snapshot.state.positionMass[0], glm::vec4(1, 2, 3, 0.5f));
  EXPECT_EQ(snapshot.state.velocity[0], glm::vec4(4, 5, 6, 0));
  EXPECT_EQ(snapshot.state.positionMass[1], glm::vec4(-1, -2, -3, 0.25f));
  EXPECT_EQ(snapshot.state.velocity[1], glm::vec4(0.5f, 0.25f, 0.125f, 0));
  EXPECT_EQ(snapshot.state.positionMass[2], glm::vec4(7, 8, 9, 0.125f));
  EXPECT_EQ(snapshot.state.positionMass[3], glm::vec4(0.1f, 0.2f, 0.3f, 2.0f));
  EXPECT_EQ(snapshot.state.velocity[3], glm::vec4(0, 0, -1e-3f, 0));
}

TEST(Tipsy, ImportsEveryParticleKindInBothByteOrders) {
  for (bool bigEndian : {false, true}) {
    const std::string bytes = test::TipsyWriter(bigEndian).write(0.75, kGas, kDark, kStars);
    ASSERT_EQ(bytes.size(), 32u + 48u + 2u * 36u + 44u);
    SCOPED_TRACE(bigEndian ? "big-endian" : "little-endian");
    EXPECT_TRUE(looksLikeTipsy(bytes));
    expectTipsyParticles(parseTipsy(bytes, "test.tipsy"));
  }
}

TEST(Tipsy, IsRecognisedWithoutItsExtension) {
  ScratchFolder scratch("tipsy-sniff");
  std::ofstream(scratch / "galaxy.dat", std::ios::binary)
      << test::TipsyWriter(true).write(0.75, kGas, kDark, kStars);
  expectTipsyParticles(readSnapshotFile(scratch / "galaxy.dat"));
}

TEST(Tipsy, ATruncatedFileIsRefusedWithItsCounts) {
  std::string bytes = test::TipsyWriter(false).write(0.75, kGas, kDark, kStars);
  bytes.resize(bytes.size() - 4);
  EXPECT_FALSE(looksLikeTipsy(bytes));
  try {
    parseTipsy(bytes, "cut.tipsy");
    FAIL() << "accepted a truncated TIPSY file";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(
        std::string(e.what()).find("cut.tipsy: truncated: the TIPSY header lists 1 gas, 2 dark "
                                   "and 1 star particles"),
        std::string::npos)
        << e.what();
  }
}

TEST(Tipsy, AnInconsistentHeaderIsNotTipsy) {
  std::string bytes = test::TipsyWriter(false).write(0.75, kGas, kDark, kStars);
  bytes[8] = 9;  // nbodies no longer the sum of the counts
  EXPECT_FALSE(looksLikeTipsy(bytes));
  EXPECT_THROW(
      {
        try {
          parseTipsy(bytes, "odd.bin");
        } catch (const std::runtime_error& e) {
          EXPECT_NE(std::string(e.what()).find("odd.bin: not a TIPSY file"), std::string::npos)
              << e.what();
          throw;
        }
      },
      std::runtime_error);
}

TEST(SnapshotFile, AnUnrecognisedFileGetsTheCsvReadersMessage) {
  ScratchFolder scratch("unrecognised");
  std::ofstream(scratch / "notes.txt") << "hello\n";
  try {
    readSnapshotFile(scratch / "notes.txt");
    FAIL() << "accepted a text file";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(
        std::string(e.what()).find("notes.txt:1: the header must be exactly x,y,z,mass,vx,vy,vz"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace nbody
