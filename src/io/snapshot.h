#pragma once
// A snapshot is a run at one moment: the state and what it takes to continue it. The formats:
//   CSV (.csv, columns x,y,z,mass,vx,vy,vz and where needed id,component; csv.h): the state only;
//   the binary snapshot (.nbody, binary_snapshot.h): state, time, step and settings;
//   TIPSY (.tipsy little-endian, .std big-endian; .bin read only; tipsy.h): state and time;
//   GADGET-2 binary (.gadget, .g2; gadget_binary.h): state, time and units;
//   GADGET HDF5 (.hdf5, .h5; gadget_hdf5.h): state, time and units.
// Reading recognises the format by the file's content (a magic number, a GADGET record, HDF5's
// signature, a consistent TIPSY header) and otherwise by extension; writing picks it by extension.
// The functions that read and write files (snapshot_files.cpp) are in the library nbody_hdf5,
// which links HDF5: what needs only the formats without HDF5 (the fuzzers) links nbody_io alone.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

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

// The units a file's numbers are in, where it says (GADGET files, io/gadget.h): the G a run from it
// takes unless the command line gives one, and where that G comes from, for the line that says so.
struct FileUnits {
  double gravity = 1.0;
  std::string origin;  // e.g. "the file's units (kpc, km/s, 1e10 Msun)"
};

struct Snapshot {
  State state;
  double time = 0.0;
  long long step = 0;
  std::optional<RunSettings> settings;            // only binary snapshots carry them
  std::optional<FileUnits> units = std::nullopt;  // only GADGET files carry them
  // The bodies in double, where they hold more than the float32 state (physics/state.h): written
  // by CSV (shortest double digits) and GADGET HDF5 (float64), read back from them; the other
  // formats hold float32 only.
  std::optional<DoubleState> doubles = std::nullopt;
  // Each body's radius (>= 0, finite), for collisions (physics/collisions.h), where the file has
  // them: CSV's radius column, .nbody version 4, GADGET HDF5's Radius datasets (nbody's own). The
  // other formats hold none (formatHoldsRadii).
  std::optional<std::vector<double>> radii = std::nullopt;
};

// The G a run from `snapshot` takes: its settings', else its units', else 1 (a scene's).
double runGravityOf(const Snapshot& snapshot);
// Where a file says its units and the command line gave no G: the file's G goes into `step`, and
// the line that says so ("G = 43007.1 from X's units (...); --gravity sets another") comes back;
// otherwise nothing changes and the line is empty.
std::string takeFileGravity(const Snapshot& snapshot, const std::string& source, bool gravityGiven,
                            StepParams& step);

enum class SnapshotFormat { csv, binary, tipsy, tipsyStandard, gadget, gadgetHdf5 };

// By extension, case aside: .nbody binary, .hdf5/.h5 GADGET HDF5, .gadget/.g2 GADGET-2 binary,
// .tipsy TIPSY little-endian, .std TIPSY big-endian (the standard), anything else CSV.
SnapshotFormat outputFormatFor(const std::filesystem::path& path);
// Whether a file of `format` keeps the bodies' radii (Snapshot::radii); its name for messages.
bool formatHoldsRadii(SnapshotFormat format);
std::string formatName(SnapshotFormat format);
// The formats and their extensions in a few words, for --help.
std::string inputFormatsHelp();
std::string outputFormatsHelp();
// The extension each output format is written under, in the table's order (".nbody" first).
std::vector<std::string> outputExtensions();
// Throws std::invalid_argument for a binary snapshot without settings or a state a format cannot
// hold, std::runtime_error for a state or time that is not finite (never written: it could not be
// loaded again).
void writeSnapshot(const Snapshot& snapshot, SnapshotFormat format, std::ostream& out);
// Writes the file whole or not at all (io/output_file.h), in the format the extension names.
void writeSnapshotFile(const Snapshot& snapshot, const std::filesystem::path& path);

// Any of the formats, recognised as above; a GADGET snapshot of several files from any of them
// (base.K, base.K.hdf5). Throws std::runtime_error naming the file and the problem.
Snapshot readSnapshotFile(const std::filesystem::path& path);

// Throws std::runtime_error for a time or state that is not finite, or a step beyond kLargestStep.
void refuseUnwritable(const Snapshot& snapshot);
// Throws std::runtime_error ("SOURCE: ...") unless there is one radius a body, each finite, >= 0.
void checkRadii(const std::vector<double>& radii, std::size_t bodies, const std::string& source);

// The checks every loader applies to the bodies it read: at least one, finite numbers,
// no negative mass (massless bodies are test particles: a run without an external potential refuses
// a state of them only, app/run/run_options.h). Throws std::runtime_error naming `source` and the
// body.
void checkBodies(const State& state, const std::string& source);
// The same of a part of a state, which may hold none: its row k is named `names[k]` (its index in
// the whole).
void checkPartBodies(const State& state, const std::string& source,
                     std::span<const std::uint64_t> names);

}  // namespace nbody
