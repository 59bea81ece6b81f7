#pragma once
// The snapshots of one run, written one by one to the paths of a pattern (simulate's
// --snapshot-path): each file whole or not at all, as writeSnapshotFile writes it; GADGET HDF5
// ones (.hdf5) with an XDMF index beside them (io/xdmf_index.h), rewritten whole after each, so
// that ParaView plays what the run has written so far, even of a run that stops. In nbody_hdf5.

#include <filesystem>
#include <string>
#include <vector>

#include "io/snapshot.h"
#include "io/xdmf_index.h"

namespace nbody {

class SnapshotSeriesWriter {
 public:
  explicit SnapshotSeriesWriter(const std::string& pattern)
      : pattern_(pattern), index_(xdmfIndexPathFor(pattern)) {}
  // A series that goes on from step `firstStep` keeps what its index lists up to there
  // (io/xdmf_index.h's EarlierSnapshots); the refusal, if the index is not this series' to rewrite.
  std::string continueFrom(long long firstStep);
  // Throws what writeSnapshotFile throws, and OutputError for an index that cannot be written.
  void write(const Snapshot& snapshot, const std::filesystem::path& path);
  // A snapshot its writer wrote (in parts: app/run/snapshot_parts.h), into the index.
  void index(const XdmfSnapshot& entry);
  const std::filesystem::path& indexPath() const { return index_; }

 private:
  std::string pattern_;
  std::filesystem::path index_;
  std::vector<std::string> earlier_;
  std::vector<XdmfSnapshot> written_;
};

}  // namespace nbody
