#pragma once
// An XDMF index (.xmf) of a series of GADGET HDF5 snapshots, as SWIFT writes one (its src/xmf.c),
// so that ParaView plays a run: a temporal collection of one spatial collection a snapshot, with
// its time (in the files' units, as their /Header Time) and per particle type a Polyvertex grid
// whose geometry is file.hdf5:/PartTypeK/Coordinates and whose attributes are the velocities,
// masses and IDs, each DataItem with the number type and width the file holds. The snapshots are
// named relative to the index's folder, so the run's folder can move.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/gadget.h"

namespace nbody {

struct XdmfSnapshot {
  std::string file;  // relative to the index's folder
  double time = 0.0;
  std::uint64_t counts[kGadgetTypes] = {};
  bool doublePrecision = false, wideIds = false;
  // A snapshot written in parts (app/run/snapshot_parts.h): each file, with its counts and ID
  // width, a grid of each type in the snapshot's spatial collection (named PartTypeK.F); `file`
  // then names the snapshot (the block), not a file.
  std::vector<XdmfSnapshot> parts;
};

// What the index says of `bodies` as the HDF5 writer writes them into `file`.
XdmfSnapshot xdmfEntryFor(const std::filesystem::path& file, const std::filesystem::path& index,
                          const GadgetBodies& bodies);
// The index text: the `earlier` blocks kept from an index the series had (EarlierSnapshots), then
// `snapshots`.
std::string xdmfIndexText(const std::vector<XdmfSnapshot>& snapshots,
                          const std::vector<std::string>& earlier = {});

// What a series continues from where its index exists already (a run resumed from one of its
// snapshots with the same --snapshot-path): the blocks of the snapshots of `pattern` at steps up
// to `firstStep` whose files (or first parts, base.0.hdf5) are still there, in the index's order. A
// later one is the run's to write again; one whose file is gone is dropped.
struct EarlierSnapshots {
  std::vector<std::string> blocks;
  // Why the index cannot be rewritten (empty: it can): it lists a snapshot of another series that
  // is still there (two patterns that differ only in the separators next to {step} share one
  // index), or it is a file nbody did not write.
  std::string refusal;
};
EarlierSnapshots earlierSnapshotsIn(const std::filesystem::path& index, const std::string& pattern,
                                    long long firstStep);
// The index of the series `pattern` names (io/output_paths: {step} is the step): the pattern's
// name without {step} and the separators next to it, with the extension .xmf, in the deepest
// folder common to every snapshot (run/step-{step}.hdf5 -> run/step.xmf, run/f-{step}/s.hdf5 ->
// run/s.xmf).
std::filesystem::path xdmfIndexPathFor(const std::string& pattern);

}  // namespace nbody
