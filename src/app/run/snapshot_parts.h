#pragma once
// Snapshots written in parts, a GADGET HDF5 file a rank (simulate's --snapshot-files ranks): each
// rank writes the bodies its engine holds (Engine::downloadPart) with their indices in the state,
// the header giving NumFilesPerSnapshot K and the totals of every file. No rank holds the whole
// state for it. nbody reads any of the files back as the one snapshot in its state's order
// (io/gadget.h: under any number of ranks, bit for bit), yt and h5py as the multi-file snapshot
// GADGET writes. The parts of the snapshot run/snap.hdf5 are run/snap.0.hdf5 ... run/snap.K-1.hdf5.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engines/engine.h"
#include "io/gadget.h"
#include "io/output_file.h"
#include "io/xdmf_index.h"

namespace nbody {

// The file this rank writes of the snapshot `path` names.
std::filesystem::path ownPartPath(const std::filesystem::path& path);

// This rank's part of the engine's current state with `frame`'s time, step and settings (its
// state is not read), and the radii of the whole state, if any. Every rank calls it alike.
struct SnapshotPart {
  Snapshot rows;                          // this rank's bodies, with the frame's time and settings
  std::vector<std::uint64_t> stateIndex;  // each one's index in the whole state
  GadgetFileShare share;
};
SnapshotPart snapshotPartOf(Engine& engine, Snapshot frame,
                            const std::optional<std::vector<double>>& radii);

// Writes `part` into `file` (this rank's own, opened with OutputWriter::everyRank, one of `group`)
// and publishes `group` once every rank has written its files whole: where one rank cannot, none
// publishes, and every rank fails naming it. `beforePublishing` as for OutputGroup::publish. Every
// rank calls it alike.
void writeOnEveryRank(const SnapshotPart& part, OutputFile& file, OutputGroup& group,
                      const std::function<void()>& beforePublishing = {});
// The same into a file of its own at `path`, opened as every rank agrees that it can be.
void writeOnEveryRank(const SnapshotPart& part, const std::filesystem::path& path);

// The XDMF index's entry for the snapshot `path` names, written in parts (this rank's `part`) into
// the files ownPartPath names on each rank, relative to `index`. Every rank calls it alike.
XdmfSnapshot xdmfEntryForParts(const std::filesystem::path& path,
                               const std::filesystem::path& index, const SnapshotPart& part);

}  // namespace nbody
