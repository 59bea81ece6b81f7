#include "app/run/snapshot_share.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "app/run/rank_agreement.h"
#include "engines/held_bodies.h"
#include "io/files_read.h"
#include "io/gadget.h"
#include "io/gadget_answer.h"
#include "io/gadget_hdf5.h"
#include "io/input_file.h"
#include "io/stop_point.h"
#include "parallel/ranks.h"

namespace nbody {
namespace {

constexpr bool kNumberBeforeExtension = true;  // base.K.hdf5

// The first of the files rank `rank` of `count` reads of a snapshot of `files` files.
int firstFileOf(int rank, int count, int files) {
  return int((std::int64_t(rank) * files + count - 1) / count);
}

// File `index` of the snapshot whose file `path` names, a snapshot of `files` files.
std::filesystem::path fileOfSnapshot(const std::filesystem::path& path, int index, int files) {
  if (files == 1) return path;
  return *gadgetSiblingFile(path, index, kNumberBeforeExtension);
}

// A file read, and its HDF5 reader's answer (gadgetHdf5Answer): its bodies not yet taken out.
struct AnsweredFile {
  std::string bytes, answer;
};

// What rank 0 found in the file `path` names, where the snapshot is read in shares: its facts
// (which every file of the snapshot must share, as where one process reads every file), its file
// count, and where it is file 0 its bytes and answer, whose bodies rank 0 takes out with the other
// ranks' (readOwnFiles: no rank waits for them); a file count of 0 where it is no share (no GADGET
// HDF5 in a regular file, or one file of several not numbered as its others: readGadgetHdf5Files
// says why).
struct LeadersLook {
  GadgetPart facts;  // the named file's, its first body only
  std::optional<AnsweredFile> firstFile;
  int fileCount = 0;
};

LeadersLook leaderLooksAt(const std::filesystem::path& path) {
  LeadersLook look;
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return look;
  AnsweredFile named{readInputFileHere(path), {}};
  if (!looksLikeHdf5(named.bytes)) return look;
  named.answer = gadgetHdf5Answer(named.bytes, path.string());
  const GadgetPart facts = gadgetHdf5PartOf(named.answer, named.bytes, path.string(), 1);
  const auto first = gadgetSiblingFile(path, 0, kNumberBeforeExtension);
  if (facts.fileCount > 1 && !first) return look;
  look.fileCount = std::max(facts.fileCount, 1);
  look.facts = facts;
  if (look.fileCount == 1 || *first == path) look.firstFile = std::move(named);
  return look;
}

// The named file's facts rank 0 found (its first body only), on every rank.
GadgetPart namedFileFacts(const LeadersLook& look, const std::filesystem::path& path) {
  const std::string sent = ranks().leader() ? gadgetPartBytes(look.facts) : "";
  const auto* first = reinterpret_cast<const std::byte*>(sent.data());
  std::vector<std::byte> bytes(first, first + sent.size());  // none but rank 0's
  ranks().broadcast(bytes);
  return gadgetPartOfBytes({reinterpret_cast<const char*>(bytes.data()), bytes.size()},
                           path.string());
}

// This rank's files of the snapshot of `files` files, appended in file order, each checked against
// `facts` (the named file's). Rank 0's file 0 it has read already.
GadgetBodies readOwnFiles(const std::filesystem::path& path, int files, LeadersLook& look,
                          const GadgetPart& facts) {
  const Ranks& r = ranks();
  const std::string source = path.string();
  GadgetBodies own = facts.bodies;
  GadgetBodies::forEachList([&](auto list, std::size_t) { (own.*list).clear(); });
  for (int index = firstFileOf(r.rank(), r.count(), files);
       index < firstFileOf(r.rank() + 1, r.count(), files); ++index) {
    const std::filesystem::path file = fileOfSnapshot(path, index, files);
    stopPoint("while reading " + file.string());
    GadgetPart part =
        index == 0 && look.firstFile
            ? gadgetHdf5PartOf(look.firstFile->answer, look.firstFile->bytes, file.string())
            : readGadgetHdf5File(readInputFileHere(file, InputKinds::filesOnly), file.string());
    if (index == 0) look.firstFile.reset();
    checkFileOfSnapshot(part, facts, file.string(), source);
    own.append(std::move(part.bodies));
  }
  look.firstFile.reset();
  return own;
}

// The names messages give the snapshot: its first file, and its files.
std::string filesOf(const std::filesystem::path& path, int files) {
  return fileOfSnapshot(path, 0, files).string() + (files > 1 ? " ..." : "");
}

// Every rank's count of `own` (a list of one value a rank), in rank order.
std::vector<std::int64_t> everyRanks(std::int64_t own) {
  std::vector<std::int64_t> counts(std::size_t(ranks().count()), 0);
  counts[std::size_t(ranks().rank())] = own;
  ranks().sum(counts);
  return counts;
}

// Where the keys of a whole of `total` bodies (a permutation of 0 .. total-1, across the ranks) are
// held: rank r owns the keys from total * r / K.
struct KeyOwners {
  std::uint64_t total;
  int count;

  std::uint64_t firstOf(int rank) const {
    return total / std::uint64_t(count) * std::uint64_t(rank) +
           total % std::uint64_t(count) * std::uint64_t(rank) / std::uint64_t(count);
  }
  int ownerOf(std::uint64_t key) const {
    int rank = int(key / (total / std::uint64_t(count) + 1));  // at most the owner
    while (rank + 1 < count && firstOf(rank + 1) <= key) ++rank;
    return rank;
  }
};

struct KeyRecord {
  std::uint64_t key, type;
};

// How many of `keys` each rank owns (`sendCounts`), and where each owner's records start when
// they are grouped by owner in rank order.
std::vector<std::size_t> ownersFirstPlaces(std::span<const std::uint64_t> keys,
                                           const KeyOwners& owners,
                                           std::vector<std::size_t>& sendCounts) {
  sendCounts.assign(std::size_t(owners.count), 0);
  for (const std::uint64_t key : keys) ++sendCounts[std::size_t(owners.ownerOf(key))];
  std::vector<std::size_t> first(sendCounts.size(), 0);
  std::exclusive_scan(sendCounts.begin(), sendCounts.end(), first.begin(), std::size_t{0});
  return first;
}

// `keys`' records grouped by their owners (`sendCounts` a rank), and where each body's went.
std::vector<KeyRecord> recordsByOwner(std::span<const std::uint8_t> types,
                                      std::span<const std::uint64_t> keys, const KeyOwners& owners,
                                      std::vector<std::size_t>& sendCounts,
                                      std::vector<std::size_t>& placed) {
  std::vector<std::size_t> next = ownersFirstPlaces(keys, owners, sendCounts);
  placed.resize(keys.size());
  std::vector<KeyRecord> records(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    placed[i] = next[std::size_t(owners.ownerOf(keys[i]))]++;
    records[placed[i]] = {keys[i], types[i]};
  }
  return records;
}

// The type of each key this rank owns (keys from `first`, `count` of them), from the records
// received; throws on every rank alike, naming the smallest, where a key came twice.
std::vector<std::uint8_t> typesOfOwnKeys(std::span<const KeyRecord> received, std::uint64_t first,
                                         std::size_t count, const std::string& files) {
  constexpr std::uint8_t kUnseen = 0xFF;
  std::vector<std::uint8_t> types(count, kUnseen);
  std::uint64_t twice = ~std::uint64_t{0};
  for (const KeyRecord& record : received) {
    std::uint8_t& type = types[std::size_t(record.key - first)];
    if (type != kUnseen) twice = std::min(twice, record.key);
    type = std::uint8_t(record.type);
  }
  const std::int64_t found =
      ranks().maximum(twice == ~std::uint64_t{0} ? -1 : -std::int64_t(twice));
  if (found != -1)  // the counts add up to the whole, so a key given twice is one missed too
    throw std::runtime_error(files + ": the bodies' StateIndex gives " + std::to_string(-found) +
                             " twice");
  return types;
}

// The index in the whole of each key this rank owns: by type, then by key.
std::vector<std::uint64_t> indicesOfOwnKeys(std::span<const std::uint8_t> types) {
  const Ranks& r = ranks();
  std::vector<std::int64_t> counts(std::size_t(r.count()) * kGadgetTypes, 0);
  for (const std::uint8_t type : types) ++counts[std::size_t(r.rank()) * kGadgetTypes + type];
  r.sum(counts);
  std::uint64_t next[kGadgetTypes] = {}, below = 0;  // first of each type: those of the types below
  for (int type = 0; type < kGadgetTypes; ++type) {
    next[type] = below;
    for (int rank = 0; rank < r.count(); ++rank) {
      const std::uint64_t count = std::uint64_t(counts[std::size_t(rank) * kGadgetTypes + type]);
      below += count;
      if (rank < r.rank()) next[type] += count;  // and of this type, the ranks' before
    }
  }
  std::vector<std::uint64_t> indices(types.size());
  for (std::size_t k = 0; k < types.size(); ++k) indices[k] = next[types[k]]++;
  return indices;
}

// Each body's index in the whole as one file of it holds it (by type, then by key), from every
// rank's bodies' types and keys (together a permutation of 0 .. total-1). A collective.
std::vector<std::uint64_t> wholeIndices(std::span<const std::uint8_t> types,
                                        std::span<const std::uint64_t> keys, std::uint64_t total,
                                        const std::string& files) {
  const Ranks& r = ranks();
  const KeyOwners owners{total, r.count()};
  std::vector<std::size_t> sendCounts, placed, receivedCounts, answeredCounts;
  std::vector<KeyRecord> received;
  {
    const std::vector<KeyRecord> sent = recordsByOwner(types, keys, owners, sendCounts, placed);
    received =
        allToAllRecords<KeyRecord>(r, std::as_bytes(std::span(sent)), sendCounts, receivedCounts);
  }
  const std::uint64_t first = owners.firstOf(r.rank());
  std::vector<std::uint64_t> answers(received.size());
  {
    const std::vector<std::uint64_t> ownIndices = indicesOfOwnKeys(
        typesOfOwnKeys(received, first, std::size_t(owners.firstOf(r.rank() + 1) - first), files));
    for (std::size_t k = 0; k < received.size(); ++k)
      answers[k] = ownIndices[std::size_t(received[k].key - first)];
    received = {};
  }
  const std::vector<std::uint64_t> answered = allToAllRecords<std::uint64_t>(
      r, std::as_bytes(std::span(answers)), receivedCounts, answeredCounts);
  std::vector<std::uint64_t> indices(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) indices[i] = answered[placed[i]];
  return indices;
}

// The whole's count of bodies, after its files' claims are checked (the bodies of each type in all,
// the StateIndex and Radius given for every body or none), and which of these they give.
struct WholeCount {
  std::uint64_t total = 0;
  bool indexed = false, radii = false;
};

WholeCount checkedTotal(const GadgetBodies& own, const GadgetPart& facts,
                        const std::string& files) {
  std::vector<std::int64_t> counts(kGadgetTypes + 2, 0);
  for (const std::uint8_t type : own.type) ++counts[type];
  counts[kGadgetTypes] = std::int64_t(own.stateIndex.size());
  counts[kGadgetTypes + 1] = std::int64_t(own.radius.size());
  ranks().sum(counts);
  const std::vector<std::uint64_t> found(counts.begin(), counts.begin() + kGadgetTypes);
  const std::uint64_t total = std::accumulate(found.begin(), found.end(), std::uint64_t{0});
  checkEveryBodyOrNoneGiven(std::uint64_t(counts[kGadgetTypes + 1]),
                            std::uint64_t(counts[kGadgetTypes]), total, files);
  checkClaimedTotals(facts.totals, found, files);
  return {total, counts[kGadgetTypes] != 0, counts[kGadgetTypes + 1] != 0};
}

// Each body's key (`own`'s StateIndex moved out): its StateIndex, checked below the whole's count,
// else its place in the files' order (this rank's files follow the ranks' before), which is its
// index in the whole.
std::vector<std::uint64_t> keysOf(GadgetBodies& own, const WholeCount& whole,
                                  const std::string& files) {
  const std::uint64_t total = whole.total;
  if (whole.indexed) {
    for (const std::uint64_t index : own.stateIndex)
      if (index >= total)
        throw std::runtime_error(files + ": the bodies' StateIndex gives " + std::to_string(index) +
                                 ", beyond the " + std::to_string(total) + " bodies");
    return std::move(own.stateIndex);
  }
  const std::vector<std::int64_t> counts = everyRanks(std::int64_t(own.size()));
  std::vector<std::uint64_t> keys(own.size());
  std::iota(keys.begin(), keys.end(),
            std::uint64_t(
                std::accumulate(counts.begin(), counts.begin() + ranks().rank(), std::int64_t{0})));
  return keys;
}

// The radii of every body in the whole's order, on every rank, from each rank's `radius` (of its
// bodies, `indices` theirs in the whole).
std::vector<double> wholeRadii(std::span<const double> radius,
                               std::span<const std::uint64_t> indices, std::uint64_t total) {
  struct Radius {
    std::uint64_t index;
    double radius;
  };
  std::vector<Radius> mine(radius.size());
  for (std::size_t i = 0; i < radius.size(); ++i) mine[i] = {indices[i], radius[i]};
  std::vector<double> radii(std::size_t(total), 0.0);
  for (const Radius& r : gatherOnEveryRank(ranks(), std::span<const Radius>(mine)))
    radii[std::size_t(r.index)] = r.radius;
  return radii;
}

// `rows` (their indices in the whole `indices`) moved to the ranks owning their indices in even
// ranges (KeyOwners: rank r the indices from total * r / K), each rank's in index order: the
// layout an upload of the whole gives, however the files fell to the ranks (one file: all on rank
// 0). Returns this rank's rows; `indices` becomes theirs. A collective.
State evenOut(State rows, std::vector<std::uint64_t>& indices, std::uint64_t total) {
  struct Row {
    std::uint64_t index, id;
    glm::vec4 positionMass, velocity;
    std::uint64_t component;
  };
  const Ranks& r = ranks();
  const KeyOwners owners{total, r.count()};
  std::vector<std::size_t> sendCounts, receivedCounts;
  std::vector<std::size_t> next = ownersFirstPlaces(indices, owners, sendCounts);
  std::vector<Row> sent(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k)
    sent[next[std::size_t(owners.ownerOf(indices[k]))]++] = {
        indices[k], rows.id[k], rows.positionMass[k], rows.velocity[k], rows.component[k]};
  rows = State{};
  const std::vector<Row> got =
      allToAllRecords<Row>(r, std::as_bytes(std::span(sent)), sendCounts, receivedCounts);
  sent = {};
  const std::uint64_t first = owners.firstOf(r.rank());
  if (got.size() != owners.firstOf(r.rank() + 1) - first)
    throw std::logic_error("a share's rows were not every index once");
  rows.resize(got.size());
  indices.resize(got.size());
  for (const Row& row : got) {
    const std::size_t k = std::size_t(row.index - first);
    indices[k] = row.index, rows.id[k] = row.id, rows.component[k] = std::uint8_t(row.component);
    rows.positionMass[k] = row.positionMass, rows.velocity[k] = row.velocity;
  }
  return rows;
}

// Whether every rank's `rows` as read fit what a rank of the decomposed tree plans for as it holds
// its share of `total` (HeldBodies::plannedShare: an eighth over N/K), agreed across the ranks.
bool rowsFitAsRead(std::size_t rows, std::uint64_t total) {
  return std::uint64_t(ranks().maximum(std::int64_t(rows))) <=
         HeldBodies::plannedShare(std::size_t(total), ranks().count());
}

// `rows` (their indices in the whole `indices`) kept on this rank, in the order of their indices.
State inIndexOrder(State rows, std::vector<std::uint64_t>& indices) {
  if (std::is_sorted(indices.begin(), indices.end())) return rows;
  std::vector<std::size_t> order(indices.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return indices[a] < indices[b]; });
  State sorted;
  sorted.resize(order.size());
  std::vector<std::uint64_t> sortedIndices(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t from = order[k];
    sortedIndices[k] = indices[from];
    sorted.positionMass[k] = rows.positionMass[from], sorted.velocity[k] = rows.velocity[from];
    sorted.id[k] = rows.id[from], sorted.component[k] = rows.component[from];
  }
  indices = std::move(sortedIndices);
  return sorted;
}

// `own`'s bodies as rows of the whole (`indices` theirs in it, in `own`'s order), kept where they
// were read where every rank's fit its plan (rowsFitAsRead: parts written by a decomposed run then
// start its walkers' segments again, and its first evaluation moves few), else evened out over
// the ranks; and the whole's radii where `whole` has them and `withRadii`. Every rank calls it
// alike.
SnapshotShare shareOfTheWhole(GadgetBodies own, std::vector<std::uint64_t> indices,
                              const WholeCount& whole, const std::string& source, bool withRadii) {
  SnapshotShare share;
  share.total = std::size_t(whole.total);
  const std::vector<double> radius = std::move(own.radius);
  onEveryRankAlike([&] { share.start = snapshotPartFromGadget(own, indices, source); });
  own = {};
  if (whole.radii && withRadii) {
    share.start.radii = wholeRadii(radius, indices, whole.total);
    onEveryRankAlike([&] { checkRadii(*share.start.radii, share.total, source); });
  }
  share.indices = std::move(indices);
  share.start.state = rowsFitAsRead(share.indices.size(), whole.total)
                          ? inIndexOrder(std::move(share.start.state), share.indices)
                          : evenOut(std::move(share.start.state), share.indices, whole.total);
  return share;
}

}  // namespace

std::optional<SnapshotShare> readSnapshotShare(const std::filesystem::path& path, bool withRadii) {
  if (outputFormatFor(path) != SnapshotFormat::gadgetHdf5) return std::nullopt;  // by name alone
  LeadersLook look;
  onLeaderForEveryRank([&] { look = leaderLooksAt(path); });
  const int files = int(ranks().maximum(look.fileCount));
  if (files == 0) return std::nullopt;
  const GadgetPart facts = namedFileFacts(look, path);
  for (int index = 0; index < files; ++index)  // no output of any rank replaces any of them
    noteFileRead(fileOfSnapshot(path, index, files));
  GadgetBodies own;
  onEveryRankAlike([&] { own = readOwnFiles(path, files, look, facts); });
  const std::string names = filesOf(path, files), source = path.string();
  WholeCount whole;
  onEveryRankAlike([&] { whole = checkedTotal(own, facts, names); });
  if (whole.total == 0) throw std::runtime_error(source + ": no bodies");  // on every rank
  std::vector<std::uint64_t> keys;
  onEveryRankAlike([&] { keys = keysOf(own, whole, names); });
  std::vector<std::uint64_t> indices =
      whole.indexed ? wholeIndices(own.type, keys, whole.total, names) : std::move(keys);
  keys = {};
  return shareOfTheWhole(std::move(own), std::move(indices), whole, source, withRadii);
}

RunStart readRunStart(const std::filesystem::path& input, bool inShares, bool withRadii) {
  if (inShares)
    if (std::optional<SnapshotShare> share = readSnapshotShare(input, withRadii))
      return shareRunStart(std::move(*share));
  return wholeRunStart(readSnapshotFile(input));
}

RunStart shareRunStart(SnapshotShare share) {
  RunStart start;
  start.snapshot = std::move(share.start);
  start.partIndices = std::move(share.indices);
  start.bodies = share.total;
  return start;
}

RunStart wholeRunStart(Snapshot snapshot) {
  RunStart start;
  start.bodies = snapshot.state.size();
  start.snapshot = std::move(snapshot);
  return start;
}

StatePart sceneRowsOfRank(const SceneChoice& scene) {
  const std::size_t total = scene.bodyCount();
  const KeyOwners owners{total, ranks().count()};
  const auto first = std::size_t(owners.firstOf(ranks().rank())),
             last = std::size_t(owners.firstOf(ranks().rank() + 1));
  StatePart part;
  part.rows = scene.generateRows(
      first, last, [](std::span<ExactSum> sums) { exactSumsOnEveryRank(ranks(), sums); });
  part.indices.resize(last - first);
  std::iota(part.indices.begin(), part.indices.end(), first);
  return part;
}

RunStart sceneRunStart(const Engine& engine, const RunOptions& run, bool inShares) {
  const std::size_t total = run.choice.scene.bodyCount();
  engine.checkCapacity(total);
  if (!inShares || !ranks().distributed()) return wholeRunStart(makeInitialSnapshot(run));
  StatePart part = sceneRowsOfRank(run.choice.scene);
  RunStart start;
  start.snapshot.state = std::move(part.rows);
  start.partIndices = std::move(part.indices);
  start.bodies = total;
  return start;
}

RunStart apartRunStart(Engine& engine, const RunOptions& run,
                       const std::function<bool(std::size_t)>& apart, bool withRadii) {
  if (run.input.empty()) {
    const bool inShares = apart(run.choice.scene.bodyCount());
    engine.deferGathering(inShares);
    return sceneRunStart(engine, run, inShares);
  }
  const bool shares = ranks().distributed() && apart(std::numeric_limits<std::size_t>::max());
  RunStart start = readRunStart(run.input, shares, withRadii);
  engine.deferGathering(apart(start.bodies));
  wholeUnlessHeld(start, engine.gatheringDeferred(), run);
  engine.checkCapacity(start.bodies);
  return start;
}

void wholeUnlessHeld(RunStart& start, bool held, const RunOptions& run) {
  if (held || !start.partIndices) return;
  start = RunStart{};  // freed before the whole is read or made
  start =
      run.input.empty() ? wholeRunStart(makeInitialSnapshot(run)) : readRunStart(run.input, false);
}

void uploadRunStartKept(const RunStart& start, Engine& engine) {
  if (!start.partIndices)
    return engine.uploadWithDoubles(start.snapshot.state, start.snapshot.doubles);
  engine.uploadPart({start.snapshot.state, *start.partIndices, std::nullopt}, start.bodies);
}

void uploadRunStart(RunStart& start, Engine& engine) {
  if (!start.partIndices) return uploadRunStartKept(start, engine);
  engine.uploadPart({std::move(start.snapshot.state), std::move(*start.partIndices), std::nullopt},
                    start.bodies);
  start.partIndices.reset();
}

}  // namespace nbody
