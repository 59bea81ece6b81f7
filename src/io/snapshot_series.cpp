#include "io/snapshot_series.h"

#include "io/gadget_hdf5.h"
#include "io/output_file.h"

namespace nbody {

std::string SnapshotSeriesWriter::continueFrom(long long firstStep) {
  if (outputFormatFor(pattern_) != SnapshotFormat::gadgetHdf5) return {};
  EarlierSnapshots earlier = earlierSnapshotsIn(index_, pattern_, firstStep);
  earlier_ = std::move(earlier.blocks);
  return earlier.refusal;
}

void SnapshotSeriesWriter::write(const Snapshot& snapshot, const std::filesystem::path& path) {
  if (outputFormatFor(path) != SnapshotFormat::gadgetHdf5) return writeSnapshotFile(snapshot, path);
  refuseUnwritable(snapshot);
  const GadgetBodies bodies = gadgetFromSnapshot(snapshot);
  OutputFile file(path);
  const std::string image = gadgetHdf5Image(bodies);
  file.write(image.data(), image.size());
  file.commit();
  index(xdmfEntryFor(path, index_, bodies));
}

void SnapshotSeriesWriter::index(const XdmfSnapshot& entry) {
  written_.push_back(entry);
  OutputFile index(index_);
  index.stream() << xdmfIndexText(written_, earlier_);
  index.commit();
}

}  // namespace nbody
