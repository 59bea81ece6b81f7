// The decomposed tree's pieces under mpiexec (docs/decomposed-tree-design.md, section 7), one mode
// a step of its build order: each rank checks what it holds against what it can work out alone,
// says on stderr what differs, and the ranks agree on the outcome. Exit 0 when every rank found
// what it expected (rank 0 then prints one line), 1 otherwise, 2 for a bad command line.
// Modes: collectives (step 1: Ranks::sum over a span, Ranks::allToAll, exactSumOnEveryRank).

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "parallel/ranks.h"

namespace nbody {
namespace {

// What rank `from` sends rank `to`: 1 to 4 records, and from 3 ranks nothing for some pairs
// (every pair of 2 ranks sends some, so that 2 ranks see the parts' order too).
std::size_t recordsBetween(int from, int to) { return std::size_t((from * 7 + to * 3 + 1) % 5); }

struct Record {
  std::uint32_t from, to, index;
};

bool sumsAcrossRanks(const Ranks& ranks) {
  constexpr std::int64_t kLarge = std::int64_t(1) << 40;  // past 32 bits
  std::vector<std::int64_t> values(5);
  for (std::size_t k = 0; k < values.size(); ++k)
    values[k] = (ranks.rank() + 1) * std::int64_t(k + 1) * kLarge - std::int64_t(k);
  ranks.sum(values);
  const std::int64_t count = ranks.count();
  bool ok = true;
  for (std::size_t k = 0; k < values.size(); ++k) {
    const std::int64_t expected =
        count * (count + 1) / 2 * std::int64_t(k + 1) * kLarge - count * std::int64_t(k);
    if (values[k] != expected) {
      std::fprintf(stderr, "rank %d: sum %zu is %lld, not %lld\n", ranks.rank(), k,
                   (long long)values[k], (long long)expected);
      ok = false;
    }
  }
  return ok;
}

bool recordsAcrossRanks(const Ranks& ranks) {
  std::vector<Record> send;
  std::vector<std::size_t> units;
  for (int to = 0; to < ranks.count(); ++to) {
    units.push_back(recordsBetween(ranks.rank(), to));
    for (std::uint32_t k = 0; k < units.back(); ++k)
      send.push_back({std::uint32_t(ranks.rank()), std::uint32_t(to), k});
  }
  std::vector<std::size_t> receivedUnits;
  const std::vector<std::byte> received =
      ranks.allToAll(std::as_bytes(std::span(send)), units, sizeof(Record), receivedUnits);
  std::vector<Record> expected;
  for (int from = 0; from < ranks.count(); ++from)
    for (std::uint32_t k = 0; k < recordsBetween(from, ranks.rank()); ++k)
      expected.push_back({std::uint32_t(from), std::uint32_t(ranks.rank()), k});
  bool ok = received.size() == expected.size() * sizeof(Record) &&
            std::memcmp(received.data(), expected.data(), received.size()) == 0;
  for (int from = 0; from < ranks.count(); ++from)
    ok = ok && receivedUnits.at(std::size_t(from)) == recordsBetween(from, ranks.rank());
  if (!ok)
    std::fprintf(
        stderr, "rank %d: allToAll brought other parts than those sent (%zu bytes, %zu expected)\n",
        ranks.rank(), received.size(), expected.size() * sizeof(Record));
  return ok;
}

// Terms of every rank, from 2^-1000 to 2^1000 and both signs: the sum across ranks must be the
// one sum of all of them, bit for bit.
double termOf(int rank, int k) {
  return (k % 2 ? -1.0 : 1.0) * std::ldexp(1.0 + k / 7.0, (rank * 37 + k * 151) % 2001 - 1000);
}

bool exactSumsAcrossRanks(const Ranks& ranks) {
  ExactSum own, all;
  for (int k = 0; k < 40; ++k) own.add(termOf(ranks.rank(), k));
  for (int rank = 0; rank < ranks.count(); ++rank)
    for (int k = 0; k < 40; ++k) all.add(termOf(rank, k));
  const double across = exactSumOnEveryRank(ranks, own).value(), expected = all.value();
  if (std::memcmp(&across, &expected, sizeof across) == 0) return true;
  std::fprintf(stderr, "rank %d: the exact sum across ranks is %.17g, not %.17g\n", ranks.rank(),
               across, expected);
  return false;
}

int probe(const std::string& mode) {
  const Ranks& ranks = nbody::ranks();
  if (mode != "collectives") {
    std::fprintf(stderr, "decomposed_probe: unknown mode %s (collectives)\n", mode.c_str());
    return 2;
  }
  const bool ok =
      sumsAcrossRanks(ranks) && recordsAcrossRanks(ranks) && exactSumsAcrossRanks(ranks);
  if (ranks.maximum(ok ? 0 : 1) != 0) return 1;
  if (ranks.leader()) std::printf("%s: ok on %d ranks\n", mode.c_str(), ranks.count());
  return 0;
}

}  // namespace
}  // namespace nbody

int main(int argc, char** argv) {
  nbody::startRanks(&argc, &argv);
  const int status = nbody::probe(argc > 1 ? argv[1] : "");
  nbody::finishRanks();
  return status;
}
