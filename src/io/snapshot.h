#pragma once
// A snapshot is a run at one moment: the state and what it takes to continue it. Three formats:
//   CSV (.csv, the foundation's columns x,y,z,mass,vx,vy,vz): the state only;
//   the binary snapshot (.nbody, binary_snapshot.h): state, time, step and settings;
//   TIPSY (.tipsy, .std, .bin; read only, tipsy.h): state and time.
// Reading sniffs the format from the file's first bytes; writing picks it by extension.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

#include "physics/state.h"

namespace nbody {

// What continues a run exactly: the method (by name, as allMethods() knows it), the step
// parameters, and the seed the scene was made from.
struct RunSettings {
  std::string method;
  StepParams step;
  std::uint64_t seed = 0;
};

// The largest step number a snapshot may hold: far beyond any run (2^62 steps), with room for
// --steps more (at most 2^40) within a signed 64-bit count. A snapshot beyond it cannot continue
// and is refused.
inline constexpr long long kLargestStep = 1LL << 62;

struct Snapshot {
  State state;
  double time = 0.0;
  long long step = 0;
  std::optional<RunSettings> settings;  // only binary snapshots carry them
};

enum class SnapshotFormat { csv, binary, tipsy };

// .nbody: binary; anything else: CSV.
SnapshotFormat outputFormatFor(const std::filesystem::path& path);
// Throws std::invalid_argument for TIPSY (read only) and for a binary snapshot without settings,
// std::runtime_error for a state or time that is not finite (never written: it could not be
// loaded again).
void writeSnapshot(const Snapshot& snapshot, SnapshotFormat format, std::ostream& out);
// Writes the file whole or not at all (io/output_file.h), in the format the extension names.
void writeSnapshotFile(const Snapshot& snapshot, const std::filesystem::path& path);

// Any of the three formats: a binary snapshot by its magic; otherwise by extension (.nbody,
// .tipsy/.std/.bin, .csv); otherwise TIPSY if the header is consistent, else CSV. Throws
// std::runtime_error naming the file and the problem.
Snapshot readSnapshotFile(const std::filesystem::path& path);

// The checks every loader applies to the bodies it read: at least one, finite numbers,
// no negative mass, not all massless. Throws std::runtime_error naming `source` and the body.
void checkBodies(const State& state, const std::string& source);

}  // namespace nbody
