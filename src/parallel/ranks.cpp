#include "parallel/ranks.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <limits>
#include <span>
#include <stdexcept>
#include <thread>

#include <mpi.h>
#include <unistd.h>

namespace nbody {
namespace {

Ranks& world() {
  static Ranks ranks;
  return ranks;
}

// What a failing rank waits for the others to fail too (the same bad input, the same non-finite
// state reach every rank within a step) before it decides that it failed alone.
constexpr auto kFailureWait = std::chrono::seconds(3);

// A communicator of its own for the failure barrier: it cannot be mistaken for the collectives
// of the run on MPI_COMM_WORLD that the other ranks may be in.
MPI_Comm failureComm = MPI_COMM_NULL;

// When the collective this rank is in began (steady-clock nanoseconds), or 0.
std::atomic<std::int64_t> collectiveBegan{0};

std::int64_t nowNanoseconds() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Marks the time spent in one collective.
struct InCollective {
  InCollective() { collectiveBegan = nowNanoseconds(); }
  ~InCollective() { collectiveBegan = 0; }
};

void check(int status, const char* what) {
  if (status != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

// An MPI datatype of `unit` bytes, so that counts stay within int for any size.
MPI_Datatype unitType(std::size_t unit) {
  MPI_Datatype type;
  check(MPI_Type_contiguous(int(unit), MPI_BYTE, &type), "MPI_Type_contiguous");
  check(MPI_Type_commit(&type), "MPI_Type_commit");
  return type;
}

int asCount(std::size_t units) {
  if (units > std::size_t(std::numeric_limits<int>::max()))
    throw std::runtime_error("MPI: " + std::to_string(units) + " units in one exchange, over what MPI counts");
  return int(units);
}

std::string hostName() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

// Whether every rank reached the failure barrier within kFailureWait.
bool everyRankFailed() {
  MPI_Request request;
  if (MPI_Ibarrier(failureComm, &request) != MPI_SUCCESS) return false;
  const auto deadline = std::chrono::steady_clock::now() + kFailureWait;
  int done = 0;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return done != 0;
}

}  // namespace

double secondsInCollective() {
  const std::int64_t began = collectiveBegan;
  return began == 0 ? 0.0 : double(nowNanoseconds() - began) * 1e-9;
}

bool launchedByMpi() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(variable)) return true;
  return false;
}

const Ranks& ranks() { return world(); }

void startRanks(int* argc, char*** argv) {
  Ranks& ranks = world();
  ranks.host_ = hostName();
  if (!launchedByMpi()) return;
  check(MPI_Init(argc, argv), "MPI_Init");
  ranks.usesMpi_ = true;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &ranks.rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &ranks.count_), "MPI_Comm_size");
  MPI_Comm node;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, ranks.rank_, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
  check(MPI_Comm_rank(node, &ranks.nodeRank_), "MPI_Comm_rank");
  check(MPI_Comm_size(node, &ranks.nodeCount_), "MPI_Comm_size");
  MPI_Comm_free(&node);
  check(MPI_Comm_dup(MPI_COMM_WORLD, &failureComm), "MPI_Comm_dup");
}

void finishRanks() {
  if (world().usesMpi()) MPI_Finalize();
}

bool failedAlone() { return world().usesMpi() && !everyRankFailed(); }

void abortRanks(int exitCode) {
  if (world().usesMpi()) MPI_Abort(MPI_COMM_WORLD, exitCode);
  std::_Exit(exitCode);
}

void Ranks::allGather(std::span<std::byte> all, std::span<const std::size_t> units, std::size_t unit) const {
  if (!usesMpi_ || count_ == 1) return;
  std::vector<int> counts(static_cast<std::size_t>(count_)), offsets(static_cast<std::size_t>(count_));
  std::size_t offset = 0;
  for (int r = 0; r < count_; ++r) {
    counts[std::size_t(r)] = asCount(units[std::size_t(r)]);
    offsets[std::size_t(r)] = asCount(offset);
    offset += units[std::size_t(r)];
  }
  if (offset * unit > all.size()) throw std::logic_error("allGather: the parts are larger than the buffer");
  MPI_Datatype type = unitType(unit);
  const InCollective waiting;
  const int status = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all.data(), counts.data(), offsets.data(),
                                    type, MPI_COMM_WORLD);
  MPI_Type_free(&type);
  check(status, "MPI_Allgatherv");
}

void Ranks::broadcast(std::vector<std::byte>& bytes) const {
  if (!usesMpi_ || count_ == 1) return;
  const InCollective waiting;
  std::int64_t size = std::int64_t(bytes.size());
  check(MPI_Bcast(&size, 1, MPI_INT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  bytes.resize(std::size_t(size));
  constexpr std::size_t kChunk = std::size_t(1) << 30;  // MPI counts are int
  for (std::size_t at = 0; at < bytes.size(); at += kChunk)
    check(MPI_Bcast(bytes.data() + at, int(std::min(kChunk, bytes.size() - at)), MPI_BYTE, 0, MPI_COMM_WORLD),
          "MPI_Bcast");
}

std::int64_t Ranks::maximum(std::int64_t value) const {
  maximum(std::span(&value, 1));
  return value;
}

void Ranks::maximum(std::span<std::int64_t> values) const {
  if (!usesMpi_ || count_ == 1) return;
  const InCollective waiting;
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), int(values.size()), MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD),
        "MPI_Allreduce");
}

std::int64_t Ranks::sum(std::int64_t value) const {
  if (!usesMpi_ || count_ == 1) return value;
  std::int64_t result = 0;
  const InCollective waiting;
  check(MPI_Allreduce(&value, &result, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  return result;
}

std::vector<std::string> Ranks::gatherText(const std::string& text) const {
  if (!usesMpi_ || count_ == 1) return {text};
  std::vector<std::size_t> sizes(static_cast<std::size_t>(count_));
  std::vector<std::byte> sizeBytes(sizes.size() * sizeof(std::size_t));
  const std::size_t own = text.size();
  std::memcpy(sizeBytes.data() + std::size_t(rank_) * sizeof own, &own, sizeof own);
  allGather(sizeBytes, std::vector<std::size_t>(sizes.size(), 1), sizeof own);
  std::memcpy(sizes.data(), sizeBytes.data(), sizeBytes.size());
  std::size_t total = 0, before = 0;
  for (int r = 0; r < count_; ++r) {
    if (r < rank_) before += sizes[std::size_t(r)];
    total += sizes[std::size_t(r)];
  }
  std::vector<std::byte> all(total);
  std::ranges::copy(std::as_bytes(std::span(text)), all.begin() + std::ptrdiff_t(before));
  allGather(all, sizes, 1);
  std::vector<std::string> texts;
  std::size_t at = 0;
  for (const std::size_t size : sizes) {
    texts.emplace_back(reinterpret_cast<const char*>(all.data() + at), size);
    at += size;
  }
  return texts;
}

}  // namespace nbody
