#pragma once
// What the GADGET formats share (GADGET-2 binary: gadget_binary.h; GADGET HDF5: gadget_hdf5.h):
// the bodies as a file holds them, by particle type, and GADGET's units
// (docs/formats.md, "Units").
//
// A GADGET file holds lengths, velocities and masses in its units: 1 kpc, 1 km/s and 1e10 solar
// masses unless it says otherwise, in which G = 43007.1. Reading one keeps the numbers and hands on
// the file's G (Snapshot::units). Writing a run whose G is another (a scene's G = 1) keeps lengths
// and masses (kpc, 1e10 Msun) and scales velocities by sqrt(G_file / G_run) and times by its
// inverse, so that yt, pynbody and Gadgetviewer read the right physics with no user action. Such a
// file records the run's own G and time (GadgetRunRecord), and GADGET HDF5 holds its numbers in
// double precision: reading it back divides the scaling out again to the same float32 bits (a
// double's rounding is far below a float's half ulp), and the run goes on in its own units
// (GADGET-2 binary stays float32 for its readers: gadget_binary.h). A run in GADGET's units already
// (one started from a GADGET file) is written unscaled, in float32.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/snapshot.h"

namespace nbody {

inline constexpr int kGadgetTypes = 6;

// A unit system in cgs, as GADGET's parameter files and HDF5 /Units give it.
struct GadgetUnits {
  double lengthInCm = 3.085678e21;  // GADGET-2's defaults: 1 kpc,
  double massInG = 1.989e43;        // 1e10 solar masses,
  double velocityInCmPerS = 1e5;    // 1 km/s

  double timeInS() const { return lengthInCm / velocityInCmPerS; }
  // G in these units, from GADGET-2's G = 6.672e-8 cgs: 43007.1 for the defaults.
  double gravity() const;
  // "kpc, km/s, 1e10 Msun" for the defaults, else the cgs values.
  std::string describe() const;
  bool valid() const;  // every unit finite and > 0
};

// What a file nbody wrote records of the run it came from: its G and time, exactly.
struct GadgetRunRecord {
  double gravity = 1.0;
  double time = 0.0;
};

// Velocities are written times `velocity`, times times 1 / `velocity`. exact(): no scaling.
struct GadgetScaling {
  double velocity = 1.0;
  bool exact() const { return velocity == 1.0; }
};
// For a run of gravitational constant `runGravity`, in GADGET's default units.
GadgetScaling gadgetScalingFor(double runGravity);

// The bodies of a GADGET file, in its numbers and type order, and what its header says.
struct GadgetBodies {
  std::vector<double> position, velocity;  // 3 a body
  std::vector<double> mass;
  std::vector<std::uint64_t> id;
  std::vector<std::uint8_t> type;
  std::vector<double> radius;  // none, or one a body (GADGET HDF5's Radius datasets: nbody's own)
  // None, or each body's index in the state of the run that wrote it (GADGET HDF5's StateIndex
  // datasets: nbody's own, in a snapshot written in parts): readers put the bodies of every part
  // back in the order one file of the snapshot would hold them.
  std::vector<std::uint64_t> stateIndex;
  double time = 0.0;
  GadgetUnits units;
  std::optional<GadgetRunRecord> record;  // the file was written by nbody
  bool doublePrecision = false;           // for writers: float64 numbers rather than float32

  std::size_t size() const { return mass.size(); }
  // Calls visit(&GadgetBodies::list, width) for each list of values a body (width values each).
  template <typename Visit>
  static void forEachList(Visit&& visit) {
    visit(&GadgetBodies::position, 3), visit(&GadgetBodies::velocity, 3);
    visit(&GadgetBodies::mass, 1), visit(&GadgetBodies::id, 1), visit(&GadgetBodies::type, 1);
    visit(&GadgetBodies::radius, 1), visit(&GadgetBodies::stateIndex, 1);
  }
  void reserve(std::size_t bodies);
  void append(const GadgetBodies& more);  // another file's bodies
  void append(GadgetBodies&& more);       // the same, moved where these hold none
  // Bodies of each type, for the headers' NumPart arrays.
  std::vector<std::uint64_t> countsByType() const;
};

// Which file of a snapshot of several a writer writes, and what the snapshot holds in all.
struct GadgetFileShare {
  int file = 0, fileCount = 1;
  std::uint64_t totals[kGadgetTypes] = {};
};
// The share of a snapshot of one file: `bodies` are all it holds.
GadgetFileShare wholeSnapshotShare(const GadgetBodies& bodies);
// File `index` of the snapshot `path` names, as GADGET numbers the files of one snapshot:
// run/snap.hdf5 -> run/snap.<index>.hdf5 (the extension kept last, as the readers look for it).
std::filesystem::path gadgetPartPath(const std::filesystem::path& path, int index);

// One file of a snapshot as a reader gives it: its bodies, how many files the snapshot has (0 read
// as 1), and the totals of each type its header claims (0 where it claims none).
struct GadgetPart {
  GadgetBodies bodies;
  int fileCount = 1;
  std::uint64_t totals[kGadgetTypes] = {};
};
using GadgetPartReader = GadgetPart (*)(std::string_view bytes, const std::string& source);

// File `index` of the snapshot `path` is a file of: base.K -> base.index (base.K.ext ->
// base.index.ext where `numberBeforeExtension`); nothing where the name is not of that form.
std::optional<std::filesystem::path> gadgetSiblingFile(const std::filesystem::path& path, int index,
                                                       bool numberBeforeExtension);
// Throws std::runtime_error unless `part` (read from `file`) is of the snapshot whose first file
// (of `source`) is `first`: the same file count, time, totals (where both claim any), units and run
// record; the bodies' Radius and StateIndex, where both hold bodies, given in both or neither.
void checkFileOfSnapshot(const GadgetPart& part, const GadgetPart& first, const std::string& file,
                         const std::string& source);
// `part` with its first body only, if any: all that checkFileOfSnapshot compares of a snapshot's
// first file, kept while its bodies move on.
GadgetPart firstBodyOnly(const GadgetPart& part);

// The snapshot of one file; refuses one file of several (naming `firstFile`, e.g. "base.0").
Snapshot gadgetSnapshotOfOneFile(GadgetPart part, const std::string& source,
                                 const std::string& firstFile);
// The snapshot `path` (whose bytes are `bytes`) is a file of: every file of it, read with `read`,
// where its header says it has several and its name numbers it (base.K, or base.K.ext where
// `numberBeforeExtension`), else itself. Throws std::runtime_error naming the file and the problem.
Snapshot readGadgetFiles(const std::filesystem::path& path, std::string_view bytes,
                         GadgetPartReader read, bool numberBeforeExtension);

// Throws std::runtime_error naming `files` unless the Radius and the StateIndex of a snapshot's
// files (`radii` and `stateIndices` of them, in all) are given for every one of its `bodies` or
// none.
void checkEveryBodyOrNoneGiven(std::uint64_t radii, std::uint64_t stateIndices,
                               std::uint64_t bodies, const std::string& files);

// True when an ID needs 64 bits: the writers then store every ID as u64, else as u32.
bool needsWideIds(std::span<const std::uint64_t> ids);

// The bodies of each type must add up to what a header claims in all (`totals`), where it claims
// anything (some nonzero). Throws std::runtime_error naming `files`.
void checkClaimedTotals(const std::uint64_t (&totals)[kGadgetTypes], const GadgetBodies& bodies,
                        const std::string& files);
// The same for the bodies of each type found (`found`, one count a type).
void checkClaimedTotals(const std::uint64_t (&totals)[kGadgetTypes],
                        std::span<const std::uint64_t> found, const std::string& files);

// The snapshot a reader hands on: float32 bodies, components = types, the time, and the units
// (Snapshot::units): the file's G, or where the file records its run the run's G, velocities and
// time. Throws std::runtime_error naming `source` for unusable units or bodies (checkBodies).
Snapshot snapshotFromGadget(const GadgetBodies& bodies, const std::string& source);
// The same of a part of a snapshot, which may hold no bodies: its body k as row k, which messages
// name `names[k]` (its index in the whole). Without doubles or radii.
Snapshot snapshotPartFromGadget(const GadgetBodies& bodies, std::span<const std::uint64_t> names,
                                const std::string& source);
// What a writer writes: the bodies grouped by component (each group in state order), scaled as
// above for the run's G (the settings', else the units', else 1), with the record where scaled.
// `stateIndex` (none, or one a body of the snapshot's state, ascending): the bodies are a part of a
// run's state, these its indices there, written beside them (GadgetBodies::stateIndex).
GadgetBodies gadgetFromSnapshot(const Snapshot& snapshot,
                                std::span<const std::uint64_t> stateIndex = {});
// The same of the state's rows `rows` only, in that order (a writer that writes a slice at a time):
// the time, record and precision as for all of them.
GadgetBodies gadgetFromRows(const Snapshot& snapshot, std::span<const std::size_t> rows,
                            std::span<const std::uint64_t> stateIndex = {});
// The rows of `state` in the order a file holds them: by type, each type in state order. Throws
// std::invalid_argument for a component beyond GADGET's types.
std::vector<std::size_t> rowsByComponent(const State& state);
// The bodies of every part of a snapshot, appended in file order, in the order one file would hold
// them: by type, each type by state index (placed where the indices are a state's, else a stable
// sort; nothing moves without state indices).
void putPartsInStateOrder(GadgetBodies& bodies);

}  // namespace nbody
