#include "parallel/ranks.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <span>
#include <stdexcept>
#include <thread>

#include <mpi.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "util/std_compat.h"

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

// The ranks of this node, when they are every rank of the run: their gathers go through one block
// of shared host memory instead of MPI's copies. Its errors (and the window's) return, so that a
// window MPI cannot give leaves the run on MPI_Allgatherv rather than ending it.
MPI_Comm nodeComm = MPI_COMM_NULL;

// When the collective this rank is in began (steady-clock nanoseconds), or 0.
std::atomic<std::int64_t> collectiveBegan{0};

std::int64_t nowNanoseconds() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
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
    throw std::runtime_error("MPI: " + std::to_string(units) +
                             " units in one exchange, over what MPI counts");
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

// One MPI-3 shared window of the node's ranks (rank 0 of the node holds it; every rank maps it),
// grown to the largest gather so far. `refused` once MPI or the backing folder could not give it.
// It begins with one cache line a rank (what a streamed gather's rank has published), then the
// gathers' data.
struct NodeWindow {
  MPI_Win window = MPI_WIN_NULL;
  std::byte* base = nullptr;
  std::size_t bytes = 0;
  bool refused = false;
  std::uint64_t generation = 0;  // windows allocated so far: a streamed gather keeps to one
};

NodeWindow& nodeWindow() {
  static NodeWindow window;
  return window;
}

void freeNodeWindow() {
  NodeWindow& node = nodeWindow();
  if (node.window == MPI_WIN_NULL) return;
  MPI_Win_unlock_all(node.window);
  MPI_Win_free(&node.window);
  node = {.refused = node.refused, .generation = node.generation};
}

// Open MPI places shared windows in /dev/shm unless told otherwise; a container's is often small,
// and a window larger than its free space would end the run with SIGBUS at the first touch. The
// folder is checked before MPI tries it: Open MPI 4.1's ranks wait for ever for a node leader
// that could not create the window's file.
std::string windowSpaceProblem(std::size_t bytes) {
  const char* folder = std::getenv("OMPI_MCA_osc_sm_backing_directory");
  if (!folder) folder = "/dev/shm";
  struct statvfs space {};
  struct stat kind {};
  // A file or a device there passed the checks below, and Open MPI then waited for ever.
  if (::stat(folder, &kind) == 0 && !S_ISDIR(kind.st_mode))
    return std::string(folder) + " is not a folder";
  if (::statvfs(folder, &space) != 0 || ::access(folder, W_OK) != 0)
    return std::string("cannot write into ") + folder;
  const std::size_t free = std::size_t(space.f_bavail) * std::size_t(space.f_frsize);
  if (free >= bytes) return {};
  return std::string(folder) + " has " + std::to_string(free >> 20) +
         " MiB free, the exchange needs " + std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

// Whether every rank of the node says yes.
bool everyRankOfTheNode(bool yes) {
  int all = yes ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, nodeComm);
  return all == 1;
}

void refuseNodeWindow(const std::string& why) {
  nodeWindow().refused = true;
  int nodeRank = 0;
  MPI_Comm_rank(nodeComm, &nodeRank);
  if (nodeRank == 0)
    std::fprintf(stderr,
                 "nbody: the ranks exchange through MPI_Allgatherv, not a shared window: %s\n",
                 why.c_str());
}

constexpr std::size_t kCacheLine = 64;

std::size_t windowHeaderBytes() {
  int ranks = 1;
  MPI_Comm_size(nodeComm, &ranks);
  return (std::size_t(ranks) * kCacheLine + 4095) & ~std::size_t(4095);
}

// What rank `rank` has published of the streamed gather under way (StreamedGather). The window
// exists only when the node's ranks are every rank, in the world's order: node rank = rank.
std::atomic_ref<std::uint64_t> publishedBy(int rank) {
  auto* counter =
      reinterpret_cast<std::uint64_t*>(nodeWindow().base + std::size_t(rank) * kCacheLine);
  return std::atomic_ref<std::uint64_t>(*counter);
}

// After it every rank of the node sees what every rank wrote into the window before it.
void syncNode() {
  MPI_Win_sync(nodeWindow().window);
  check(MPI_Barrier(nodeComm), "MPI_Barrier");
  MPI_Win_sync(nodeWindow().window);
}

// A window of `bytes` in all (header and data) in place of the old one, or null.
std::byte* allocateNodeWindow(std::size_t bytes) {
  NodeWindow& node = nodeWindow();
  freeNodeWindow();
  const std::size_t size = (bytes + (std::size_t(1) << 20) - 1) & ~((std::size_t(1) << 20) - 1);
  const std::string problem = windowSpaceProblem(size);
  if (!everyRankOfTheNode(problem.empty())) {
    refuseNodeWindow(problem.empty() ? "another rank's backing folder is too small" : problem);
    return nullptr;
  }
  int nodeRank = 0;
  MPI_Comm_rank(nodeComm, &nodeRank);
  void* base = nullptr;
  const int status = MPI_Win_allocate_shared(MPI_Aint(nodeRank == 0 ? size : 0), 1, MPI_INFO_NULL,
                                             nodeComm, &base, &node.window);
  if (!everyRankOfTheNode(status == MPI_SUCCESS)) {
    node.window = MPI_WIN_NULL;  // where it was made, left alone: freeing it is collective
    refuseNodeWindow("MPI_Win_allocate_shared failed");
    return nullptr;
  }
  MPI_Win_set_errhandler(node.window, MPI_ERRORS_RETURN);
  MPI_Aint sharedSize = 0;
  int unit = 0;
  check(MPI_Win_shared_query(node.window, 0, &sharedSize, &unit, &base), "MPI_Win_shared_query");
  check(MPI_Win_lock_all(MPI_MODE_NOCHECK, node.window), "MPI_Win_lock_all");
  node.base = static_cast<std::byte*>(base);
  node.bytes = size;
  ++node.generation;
  // The streamed gathers' counters start at zero, whatever memory MPI gave.
  if (nodeRank == 0) std::memset(node.base, 0, windowHeaderBytes());
  syncNode();
  return node.base;
}

// The data of the node's shared window, at least `bytes` of it (collective on the node), or null
// when it cannot be had: the run then gathers through MPI_Allgatherv.
std::byte* nodeWindowOf(std::size_t bytes) {
  NodeWindow& node = nodeWindow();
  if (nodeComm == MPI_COMM_NULL || node.refused) return nullptr;
  const std::size_t header = windowHeaderBytes();
  if (header + bytes <= node.bytes) return node.base + header;
  std::byte* base = allocateNodeWindow(header + bytes);
  return base ? base + header : nullptr;
}

// memcpy over a few threads: one thread moves far less than the memory system can.
void copyInParallel(std::byte* to, const std::byte* from, std::size_t bytes, int threads) {
  constexpr std::size_t kSmall = std::size_t(4) << 20;
  if (threads <= 1 || bytes < kSmall) {
    if (bytes > 0) std::memcpy(to, from, bytes);
    return;
  }
  std::vector<JoiningThread> helpers;
  const auto piece = [bytes, threads](int t) {
    return bytes * std::size_t(t) / std::size_t(threads);
  };
  for (int t = 1; t < threads; ++t)
    helpers.emplace_back(
        [=] { std::memcpy(to + piece(t), from + piece(t), piece(t + 1) - piece(t)); });
  std::memcpy(to, from, piece(1));
}

// The threads a rank copies with: the node's cores shared among its ranks, at most 8.
int copyThreads(int ranksOfTheNode) {
  return std::clamp(int(std::thread::hardware_concurrency()) / std::max(ranksOfTheNode, 1), 1, 8);
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

namespace {

// Whether the user chose the segments' folder in one of Open MPI's parameter files (Debian's, the
// user's, or those OMPI_MCA_mca_param_files lists), which a variable would override.
bool segmentFolderChosenInAFile() {
  std::string files = "/etc/openmpi/openmpi-mca-params.conf";
  if (const char* home = std::getenv("HOME"))
    files += std::string(":") + home + "/.openmpi/mca-params.conf";
  if (const char* listed = std::getenv("OMPI_MCA_mca_param_files"))
    files += std::string(":") + listed;
  for (std::size_t start = 0; start <= files.size();) {
    const std::size_t end = std::min(files.find(':', start), files.size());
    std::ifstream file(files.substr(start, end - start));
    for (std::string line; std::getline(file, line);)
      if (line.find("btl_vader_backing_directory") < line.find('#')) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

std::string folderForThisRanksSegments() {
  if (!std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("OMPI_MCA_btl_vader_backing_directory") ||
      segmentFolderChosenInAFile())
    return {};
  // Named after the launcher's process (the rank's parent on its node), for whoever looks for them.
  std::string folder = "/dev/shm/nbody-rank-" + std::to_string(::getppid()) + "-XXXXXX";
  if (::mkdtemp(folder.data()) == nullptr) return {};  // no /dev/shm: Open MPI finds its own way
  ::setenv("OMPI_MCA_btl_vader_backing_directory", folder.c_str(), 1);
  return folder;
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
  check(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, ranks.rank_, MPI_INFO_NULL, &node),
      "MPI_Comm_split_type");
  check(MPI_Comm_rank(node, &ranks.nodeRank_), "MPI_Comm_rank");
  check(MPI_Comm_size(node, &ranks.nodeCount_), "MPI_Comm_size");
  if (ranks.nodeCount_ == ranks.count_ && ranks.count_ > 1) {
    nodeComm = node;
    MPI_Comm_set_errhandler(nodeComm, MPI_ERRORS_RETURN);
  } else {
    MPI_Comm_free(&node);
  }
  check(MPI_Comm_dup(MPI_COMM_WORLD, &failureComm), "MPI_Comm_dup");
}

void finishRanks() {
  if (!world().usesMpi()) return;
  freeNodeWindow();
  MPI_Finalize();
}

bool failedAlone() { return world().usesMpi() && !everyRankFailed(); }

void abortRanks(int exitCode) {
  if (world().usesMpi()) MPI_Abort(MPI_COMM_WORLD, exitCode);
  std::_Exit(exitCode);
}

namespace {

// MPI's counts and displacements of parts of `units` each, in rank order.
void countsAndOffsets(std::span<const std::size_t> units, std::vector<int>& counts,
                      std::vector<int>& offsets) {
  std::size_t offset = 0;
  for (const std::size_t part : units) {
    counts.push_back(asCount(part));
    offsets.push_back(asCount(offset));
    offset += part;
  }
}

}  // namespace

void Ranks::allGather(std::span<std::byte> all, std::span<const std::size_t> units,
                      std::size_t unit) const {
  if (!usesMpi_ || count_ == 1) return;
  std::vector<int> counts, offsets;
  countsAndOffsets(units.first(std::size_t(count_)), counts, offsets);
  const std::size_t offset = std::size_t(offsets.back()) + units[std::size_t(count_) - 1];
  if (offset * unit > all.size())
    throw std::logic_error("allGather: the parts are larger than the buffer");
  if (gatherThroughNodeWindow(all.first(offset * unit),
                              std::size_t(offsets[std::size_t(rank_)]) * unit,
                              units[std::size_t(rank_)] * unit))
    return;
  MPI_Datatype type = unitType(unit);
  const InCollective waiting;
  const int status = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all.data(), counts.data(),
                                    offsets.data(), type, MPI_COMM_WORLD);
  MPI_Type_free(&type);
  check(status, "MPI_Allgatherv");
}

std::uint64_t StreamedGather::tag(std::size_t bytes) const {
  return (serial_ << 40) | std::uint64_t(bytes);
}

StreamedGather::StreamedGather(const Ranks& ranks, std::span<std::byte> all,
                               std::span<const std::size_t> units, std::size_t unit)
    : ranks_(ranks), all_(all), unit_(unit) {
  static std::uint64_t serial = 0;
  serial_ = ++serial & 0xffffff;
  if (!ranks.distributed()) return;
  std::size_t offset = 0;
  for (int r = 0; r < ranks.count(); ++r) {
    parts_.push_back({offset * unit, (offset + units[std::size_t(r)]) * unit});
    offset += units[std::size_t(r)];
  }
  if (offset * unit > all.size())
    throw std::logic_error("StreamedGather: the parts are larger than the buffer");
  units_.assign(units.begin(), units.end());
  shared_ = nodeWindowOf(offset * unit);
  generation_ = nodeWindow().generation;
  taken_.assign(parts_.size(), 0);
}

void StreamedGather::checkWindow() const {
  if (nodeWindow().generation != generation_)
    throw std::logic_error("a gather grew the node's window while a streamed gather was under way");
}

void StreamedGather::publish(std::size_t bytes) {
  if (!shared_) return;
  checkWindow();
  const Part& own = parts_[std::size_t(ranks_.rank())];
  bytes = std::min(bytes, own.last - own.first);
  if (bytes <= published_) return;
  copyInParallel(shared_ + own.first + published_, all_.data() + own.first + published_,
                 bytes - published_, copyThreads(ranks_.nodeCount()));
  published_ = bytes;
  publishedBy(ranks_.rank()).store(tag(bytes), std::memory_order_release);
}

bool StreamedGather::takeReady() {
  if (!shared_) return true;
  checkWindow();
  bool complete = true;
  for (int r = 0; r < ranks_.count(); ++r) {
    if (r == ranks_.rank()) continue;
    const Part& part = parts_[std::size_t(r)];
    const std::uint64_t seen = publishedBy(r).load(std::memory_order_acquire);
    const std::size_t size = part.last - part.first;
    const std::size_t ready =
        (seen >> 40) == serial_ ? std::min(size, std::size_t(seen & ((std::uint64_t(1) << 40) - 1)))
                                : 0;
    std::size_t& taken = taken_[std::size_t(r)];
    if (ready > taken) {
      copyInParallel(all_.data() + part.first + taken, shared_ + part.first + taken, ready - taken,
                     copyThreads(ranks_.nodeCount()));
      taken = ready;
    }
    complete = complete && taken == size;
  }
  return complete;
}

void StreamedGather::finish() {
  if (!ranks_.distributed()) return;
  if (!shared_) {
    ranks_.allGather(all_, units_, unit_);
    return;
  }
  const Part& own = parts_[std::size_t(ranks_.rank())];
  publish(own.last - own.first);
  const InCollective waiting;
  while (!takeReady()) std::this_thread::yield();
  syncNode();  // no rank writes its next part before every rank has read this one
}

bool Ranks::gatherThroughNodeWindow(std::span<std::byte> all, std::size_t ownFirst,
                                    std::size_t ownBytes) const {
  std::byte* shared = nodeWindowOf(all.size());
  if (!shared) return false;
  const int threads = copyThreads(nodeCount_);
  const std::size_t ownLast = ownFirst + ownBytes;
  const InCollective waiting;
  copyInParallel(shared + ownFirst, all.data() + ownFirst, ownBytes, threads);
  syncNode();
  copyInParallel(all.data(), shared, ownFirst, threads);
  copyInParallel(all.data() + ownLast, shared + ownLast, all.size() - ownLast, threads);
  syncNode();  // no rank writes its next part before every rank has read this one
  return true;
}

std::string Ranks::gatherPath() const {
  if (!distributed()) return "none";
  return nodeComm != MPI_COMM_NULL && !nodeWindow().refused ? "shared window" : "MPI_Allgatherv";
}

void Ranks::broadcast(std::vector<std::byte>& bytes) const {
  if (!usesMpi_ || count_ == 1) return;
  const InCollective waiting;
  std::int64_t size = std::int64_t(bytes.size());
  check(MPI_Bcast(&size, 1, MPI_INT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  bytes.resize(std::size_t(size));
  constexpr std::size_t kChunk = std::size_t(1) << 30;  // MPI counts are int
  for (std::size_t at = 0; at < bytes.size(); at += kChunk)
    check(MPI_Bcast(bytes.data() + at, int(std::min(kChunk, bytes.size() - at)), MPI_BYTE, 0,
                    MPI_COMM_WORLD),
          "MPI_Bcast");
}

namespace {

// Each element `operation` of every rank's, in place (integers: exact, in any order).
void reduceOnEveryRank(std::span<std::int64_t> values, MPI_Op operation) {
  const InCollective waiting;
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), int(values.size()), MPI_INT64_T, operation,
                      MPI_COMM_WORLD),
        "MPI_Allreduce");
}

}  // namespace

std::int64_t Ranks::maximum(std::int64_t value) const {
  maximum(std::span(&value, 1));
  return value;
}

void Ranks::maximum(std::span<std::int64_t> values) const {
  if (usesMpi_ && count_ > 1) reduceOnEveryRank(values, MPI_MAX);
}

std::int64_t Ranks::sum(std::int64_t value) const {
  sum(std::span(&value, 1));
  return value;
}

void Ranks::sum(std::span<std::int64_t> values) const {
  if (usesMpi_ && count_ > 1) reduceOnEveryRank(values, MPI_SUM);
}

std::vector<std::byte> Ranks::allToAll(std::span<const std::byte> send,
                                       std::span<const std::size_t> sendUnits, std::size_t unit,
                                       std::vector<std::size_t>& receivedUnits) const {
  receivedUnits = allToAllUnits(sendUnits);
  std::size_t total = 0;
  for (const std::size_t part : receivedUnits) total += part;
  std::vector<std::byte> all(total * unit);
  allToAllInto(send, sendUnits, receivedUnits, unit, all);
  return all;
}

std::vector<std::size_t> Ranks::allToAllUnits(std::span<const std::size_t> sendUnits) const {
  if (!usesMpi_ || count_ == 1) return {sendUnits[0]};
  std::vector<std::int64_t> sent(sendUnits.begin(), sendUnits.end()), received(sent.size());
  const InCollective waiting;
  check(MPI_Alltoall(sent.data(), 1, MPI_INT64_T, received.data(), 1, MPI_INT64_T, MPI_COMM_WORLD),
        "MPI_Alltoall");
  return {received.begin(), received.end()};
}

void Ranks::allToAllInto(std::span<const std::byte> send, std::span<const std::size_t> sendUnits,
                         std::span<const std::size_t> receivedUnits, std::size_t unit,
                         std::span<std::byte> into) const {
  if (!usesMpi_ || count_ == 1) {
    if (sendUnits[0] > 0) std::memcpy(into.data(), send.data(), sendUnits[0] * unit);
    return;
  }
  std::vector<int> sendCounts, sendOffsets, receiveCounts, receiveOffsets;
  countsAndOffsets(sendUnits, sendCounts, sendOffsets);
  countsAndOffsets(receivedUnits, receiveCounts, receiveOffsets);
  const InCollective waiting;
  MPI_Datatype type = unitType(unit);
  const int status =
      MPI_Alltoallv(send.data(), sendCounts.data(), sendOffsets.data(), type, into.data(),
                    receiveCounts.data(), receiveOffsets.data(), type, MPI_COMM_WORLD);
  MPI_Type_free(&type);
  check(status, "MPI_Alltoallv");
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
  const auto bytes = std::as_bytes(std::span(text));
  std::copy(bytes.begin(), bytes.end(), all.begin() + std::ptrdiff_t(before));
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
