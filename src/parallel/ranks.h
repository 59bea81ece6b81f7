#pragma once
// The processes of one run: under an MPI launcher (`mpirun -n K nbody ...`) one rank per GPU,
// otherwise this process alone, started exactly as without MPI (MPI is not initialised when no
// launcher started the process). Every rank holds the whole state and computes a share of the
// forces, or (the decomposed tree) holds a part of the bodies; the ranks exchange bytes and
// integers only, never a floating-point sum, so that a run on K ranks gives the bits of the run on
// one (exact sums go across as integers: exactSumOnEveryRank).
//
// The collectives below must be called by every rank, in the same order.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "util/exact_sum.h"

namespace nbody {

class Ranks {
 public:
  int rank() const { return rank_; }
  int count() const { return count_; }
  bool leader() const { return rank_ == 0; }  // reads the inputs, writes the outputs, prints
  bool distributed() const { return count_ > 1; }
  // This rank's index among the ranks of its node (the GPU it takes), and their number.
  int nodeRank() const { return nodeRank_; }
  int nodeCount() const { return nodeCount_; }
  const std::string& host() const { return host_; }
  // Whether MPI runs this process (an MPI launcher started it, even with one rank).
  bool usesMpi() const { return usesMpi_; }

  // `all` holds every rank's part, each `unit` bytes times its count in `units`, in rank order;
  // this rank's part is in place: afterwards every rank holds every part. When every rank runs on
  // one node the parts go through one shared window (MPI-3), each rank copying its part in and
  // the others' out; otherwise, or when the window cannot be had (said once), MPI_Allgatherv.
  void allGather(std::span<std::byte> all, std::span<const std::size_t> units,
                 std::size_t unit) const;
  // How allGather moves the parts: "shared window", "MPI_Allgatherv", or "none" in one process.
  std::string gatherPath() const;
  // Rank 0's `bytes` on every rank (resized).
  void broadcast(std::vector<std::byte>& bytes) const;
  // The largest of every rank's `value`; the sum of integers (exact).
  std::int64_t maximum(std::int64_t value) const;
  // Each element the largest of every rank's, in place.
  void maximum(std::span<std::int64_t> values) const;
  std::int64_t sum(std::int64_t value) const;
  // Each element the sum of every rank's, in place.
  void sum(std::span<std::int64_t> values) const;
  // Every rank sends each rank d its part of `send`: `sendUnits[d]` units of `unit` bytes, the
  // parts in rank order. Returns what every rank sent this one, the parts in rank order, and their
  // units in `receivedUnits`. Counts go in units (MPI_Alltoallv of a `unit`-byte type), so they
  // fit an int for any N.
  std::vector<std::byte> allToAll(std::span<const std::byte> send,
                                  std::span<const std::size_t> sendUnits, std::size_t unit,
                                  std::vector<std::size_t>& receivedUnits) const;
  // allToAll in its two halves, for a receiver that places the bytes itself: the units each rank
  // sends this one (MPI_Alltoall), then the parts into `into`, which holds all of them.
  std::vector<std::size_t> allToAllUnits(std::span<const std::size_t> sendUnits) const;
  void allToAllInto(std::span<const std::byte> send, std::span<const std::size_t> sendUnits,
                    std::span<const std::size_t> receivedUnits, std::size_t unit,
                    std::span<std::byte> into) const;
  // Every rank's `text`, in rank order, on every rank.
  std::vector<std::string> gatherText(const std::string& text) const;

 private:
  friend void startRanks(int* argc, char*** argv);
  // allGather through the node's shared window: false when there is none.
  bool gatherThroughNodeWindow(std::span<std::byte> all, std::size_t ownFirst,
                               std::size_t ownBytes) const;
  int rank_ = 0, count_ = 1, nodeRank_ = 0, nodeCount_ = 1;
  bool usesMpi_ = false;
  std::string host_;
};

// A gather whose parts come in pieces (the tree's walk, part by part): each rank publishes its part
// as it gets ready and takes the others' as they come, so the copies overlap the GPU's work. The
// bytes, their places in `all` and the outcome are allGather's. Every rank makes one and finishes
// it, in the same order as the other collectives. Where the ranks share no node window (across
// nodes, or a window refused), publish() and takeReady() do nothing and finish() calls allGather.
class StreamedGather {
 public:
  StreamedGather(const Ranks& ranks, std::span<std::byte> all, std::span<const std::size_t> units,
                 std::size_t unit);
  // The first `bytes` of this rank's part are in `all`: the other ranks may take them.
  void publish(std::size_t bytes);
  // Copies into `all` what the other ranks published since; true once it holds every part.
  bool takeReady();
  // Publishes the rest of this rank's part, waits for every other part, and ends the gather.
  void finish();

 private:
  struct Part {
    std::size_t first, last;  // bytes of `all`
  };
  std::uint64_t tag(std::size_t bytes) const;
  void checkWindow() const;

  const Ranks& ranks_;
  std::span<std::byte> all_;
  std::vector<std::size_t> units_;
  std::size_t unit_;
  std::vector<Part> parts_;
  std::byte* shared_ = nullptr;   // the node window's data; null: through MPI_Allgatherv at the end
  std::uint64_t serial_ = 0;      // this gather's number, the same on every rank
  std::uint64_t generation_ = 0;  // the window's it was made on
  std::size_t published_ = 0;
  std::vector<std::size_t> taken_;  // of each rank's part, bytes copied into `all`
};

// This process alone, whatever launched it: one rank, whose collectives change nothing. For what
// takes the ranks' parts where one process holds the whole (every rank of a replicated run).
inline const Ranks& processAlone() {
  static const Ranks alone;
  return alone;
}

// Each of `sums`, in place, the exact sum of every rank's: their parts added as integers (one
// collective for all of them), so the same bits as one ExactSum of every rank's terms.
inline void exactSumsOnEveryRank(const Ranks& ranks, std::span<ExactSum> sums) {
  constexpr std::size_t kParts = std::tuple_size_v<ExactSum::Parts>;
  std::vector<std::int64_t> parts(sums.size() * kParts);
  for (std::size_t s = 0; s < sums.size(); ++s) {
    const ExactSum::Parts own = sums[s].parts();
    std::copy(own.begin(), own.end(), parts.begin() + std::ptrdiff_t(s * kParts));
  }
  ranks.sum(parts);
  for (std::size_t s = 0; s < sums.size(); ++s) {
    ExactSum::Parts all;
    std::copy_n(parts.begin() + std::ptrdiff_t(s * kParts), kParts, all.begin());
    sums[s] = ExactSum::fromParts(all);
  }
}

// The exact sum of every rank's `sum`, on every rank.
inline ExactSum exactSumOnEveryRank(const Ranks& ranks, const ExactSum& sum) {
  ExactSum all = sum;
  exactSumsOnEveryRank(ranks, std::span(&all, 1));
  return all;
}

// Every rank's `own` records (trivially copyable), in rank order, on every rank: their counts added
// first, then gathered. Every rank calls it alike.
template <class Record>
std::vector<Record> gatherOnEveryRank(const Ranks& ranks, std::span<const Record> own) {
  std::vector<std::int64_t> counts(std::size_t(ranks.count()), 0);
  counts[std::size_t(ranks.rank())] = std::int64_t(own.size());
  ranks.sum(counts);
  const std::vector<std::size_t> units(counts.begin(), counts.end());
  std::size_t before = 0, total = 0;
  for (std::size_t r = 0; r < units.size(); ++r) {
    before += r < std::size_t(ranks.rank()) ? units[r] : 0;
    total += units[r];
  }
  std::vector<Record> all(total);
  std::copy(own.begin(), own.end(), all.begin() + std::ptrdiff_t(before));
  ranks.allGather(std::as_writable_bytes(std::span(all)), units, sizeof(Record));
  return all;
}

// Ranks::allToAll of records (trivially copyable): `send` holds sendCounts[r] records for each rank
// r in turn; returns what every rank sent this one, in rank order, and each one's count into
// `receivedCounts`. Every rank calls it alike.
template <class Record>
std::vector<Record> allToAllRecords(const Ranks& ranks, std::span<const std::byte> send,
                                    std::span<const std::size_t> sendCounts,
                                    std::vector<std::size_t>& receivedCounts) {
  receivedCounts = ranks.allToAllUnits(sendCounts);
  std::size_t total = 0;
  for (const std::size_t count : receivedCounts) total += count;
  std::vector<Record> records(total);  // received in place: no copy of the bytes
  ranks.allToAllInto(send, sendCounts, receivedCounts, sizeof(Record),
                     std::as_writable_bytes(std::span(records)));
  return records;
}

// The ranks of this process's run: one (this process) until startRanks found a launcher.
const Ranks& ranks();

// Joins the run an MPI launcher started (MPI_Init), or starts none when no launcher's variables
// are set. Call once, first thing in main. Throws std::runtime_error when MPI cannot start.
void startRanks(int* argc, char*** argv);
// Leaves it (MPI_Finalize), after every rank ran through or failed alike.
void finishRanks();
// After a failure: whether this rank failed alone, i.e. the other ranks did not reach the same
// point (a failure of their own) within a few seconds. A failure every rank meets (the same bad
// input, the same non-finite state) reaches them all within a step.
bool failedAlone();
// Ends every rank of the run (MPI_Abort) with `exitCode`: after a failure of this rank alone,
// which would otherwise leave the others waiting in their next collective.
[[noreturn]] void abortRanks(int exitCode);

// How long this rank has been inside a collective that waits for the other ranks (0 when it is
// not in one): a rank whose peer died waits there for ever, and a stop signal then ends it at once.
double secondsInCollective();

// Whether an MPI launcher started this process (Open MPI's, MPICH's Hydra or a PMIx launcher).
bool launchedByMpi();

// Open MPI's shared-memory transport keeps a segment of each rank's in /dev/shm, which it removes
// in MPI_Finalize: a rank its launcher kills leaves it. Where the user chose no folder for them
// (OMPI_MCA_btl_vader_backing_directory, in the environment or a parameter file), this makes one
// for this rank's,
// /dev/shm/nbody-rank-PPID-XXXXXX (PPID: the launcher's process on this node), and points Open
// MPI at it, for the caller to remove when the rank ends however it ends; "" where it made none.
// Before startRanks.
std::string folderForThisRanksSegments();

}  // namespace nbody
