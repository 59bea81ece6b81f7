#pragma once
// A GADGET HDF5 snapshot read a share of its files a rank: where the ranks will hold their own
// bodies (the decomposed tree, gathering deferred: simulate --snapshot-files ranks), no rank reads,
// parses or holds the whole. Of a snapshot of F files, rank r of K reads files ceil(rF/K) to
// ceil((r+1)F/K) - 1 (a snapshot of one file: rank 0 alone); the ranks then agree on each body's
// index in the whole, the order one process reading every file gives it (io/gadget.h): the files'
// order where they give no StateIndex (a count of the bodies of the ranks before), else by type,
// then by StateIndex, through one exchange with the rank that owns the StateIndex (16 B a body
// there, 8 B back), which also finds one given twice. Each rank's rows are then its bodies in that
// order: Engine::uploadPart of them starts the bits of a run uploaded from the whole.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "io/snapshot.h"

namespace nbody {

struct SnapshotShare {
  // This rank's bodies (in the whole's order), the snapshot's time and units; the radii of every
  // body of the whole where the files have them (in the whole's order: for the outputs).
  Snapshot start;
  std::vector<std::uint64_t> indices;  // each row's index in the whole, ascending
  std::size_t total = 0;               // the bodies of the whole
};

// This rank's share of the snapshot `path` names (any file of it), where it is GADGET HDF5 in a
// regular file; nothing where it is not (every rank then reads it whole: readSnapshotFile). Fails
// on every rank alike, in the whole's words (one rank's file named). Every rank calls it alike.
std::optional<SnapshotShare> readSnapshotShare(const std::filesystem::path& path);

}  // namespace nbody
