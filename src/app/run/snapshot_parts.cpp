#include "app/run/snapshot_parts.h"

#include <algorithm>
#include <cstdint>
#include <span>

#include "app/run/rank_agreement.h"
#include "io/gadget_hdf5.h"
#include "parallel/ranks.h"

namespace nbody {
std::filesystem::path ownPartPath(const std::filesystem::path& path) {
  return gadgetPartPath(path, ranks().rank());
}

SnapshotPart snapshotPartOf(Engine& engine, Snapshot frame,
                            const std::optional<std::vector<double>>& radii) {
  StatePart own = engine.downloadPart();
  SnapshotPart part;
  part.rows = std::move(frame);
  part.rows.state = std::move(own.rows);
  part.rows.doubles = std::move(own.doubles);
  part.rows.radii = std::nullopt;
  if (radii) {
    part.rows.radii.emplace();
    for (const std::uint64_t index : own.indices)
      part.rows.radii->push_back(radii->at(static_cast<std::size_t>(index)));
  }
  part.stateIndex = std::move(own.indices);
  const std::vector<std::uint64_t> counts = countsByComponent(part.rows.state);
  std::vector<std::int64_t> totals(counts.begin(), counts.end());
  ranks().sum(totals);  // whole numbers: the same sums on every rank
  std::copy(totals.begin(), totals.end(), part.share.totals);
  part.share.file = ranks().rank();
  part.share.fileCount = ranks().count();
  return part;
}

void writeOnEveryRank(const SnapshotPart& part, OutputFile& file, OutputGroup& group,
                      const std::function<void()>& beforePublishing) {
  onEveryRankAlike([&] {
    writeGadgetHdf5Part(part.rows, part.stateIndex, part.share, file);
    group.prepareCommit();
  });
  group.publish(beforePublishing);
}

void writeOnEveryRank(const SnapshotPart& part, const std::filesystem::path& path) {
  OutputGroup group;
  OutputFile* file = nullptr;
  onEveryRankAlike([&] { file = &group.open(path, OutputWriter::everyRank); });
  writeOnEveryRank(part, *file, group);
}

XdmfSnapshot xdmfEntryForParts(const std::filesystem::path& path,
                               const std::filesystem::path& index, const SnapshotPart& part) {
  // Each rank's counts of each type and whether its IDs are wide, in a row of its own.
  constexpr std::size_t kRow = kGadgetTypes + 1;
  const std::size_t files = std::size_t(part.share.fileCount);
  std::vector<std::int64_t> table(files * kRow, 0);
  const std::vector<std::uint64_t> counts = countsByComponent(part.rows.state);
  std::int64_t* own = &table[std::size_t(part.share.file) * kRow];
  std::copy(counts.begin(), counts.end(), own);
  own[kGadgetTypes] = needsWideIds(part.rows.state.id);
  ranks().sum(table);
  const GadgetBodies facts = gadgetFromRows(part.rows, {}, part.stateIndex);  // time, precision
  XdmfSnapshot entry = xdmfEntryFor(path, index, GadgetBodies{});
  entry.time = facts.time;
  entry.doublePrecision = facts.doublePrecision;
  std::copy(std::begin(part.share.totals), std::end(part.share.totals), entry.counts);
  for (std::size_t file = 0; file < files; ++file) {
    XdmfSnapshot piece = xdmfEntryFor(gadgetPartPath(path, int(file)), index, GadgetBodies{});
    std::copy_n(&table[file * kRow], kGadgetTypes, piece.counts);
    piece.wideIds = table[file * kRow + kGadgetTypes] != 0;
    piece.doublePrecision = entry.doublePrecision;
    entry.parts.push_back(piece);
  }
  return entry;
}

}  // namespace nbody
