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
  explicit SnapshotSeriesWriter(const std::string& pattern) : index_(xdmfIndexPathFor(pattern)) {}
  // Throws what writeSnapshotFile throws, and OutputError for an index that cannot be written.
  void write(const Snapshot& snapshot, const std::filesystem::path& path);
  const std::filesystem::path& indexPath() const { return index_; }

 private:
  std::filesystem::path index_;
  std::vector<XdmfSnapshot> written_;
};

}  // namespace nbody
