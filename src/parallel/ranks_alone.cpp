// The ranks of a build without MPI (the web page, tools/web.cmake): this process alone, always.
// ranks.cpp's functions as they behave in a process no MPI launcher started.
#include "parallel/ranks.h"

#include <algorithm>
#include <cstdlib>

namespace nbody {
namespace {

Ranks& world() {
  static Ranks ranks;
  return ranks;
}

}  // namespace

const Ranks& ranks() { return world(); }

void startRanks(int*, char***) {}
void finishRanks() {}
bool failedAlone() { return false; }
void abortRanks(int exitCode) { std::_Exit(exitCode); }
double secondsInCollective() { return 0.0; }
bool launchedByMpi() { return false; }
std::string folderForThisRanksSegments() { return ""; }

void Ranks::allGather(std::span<std::byte>, std::span<const std::size_t>, std::size_t) const {}
std::string Ranks::gatherPath() const { return "none"; }
void Ranks::broadcast(std::vector<std::byte>&) const {}
std::int64_t Ranks::maximum(std::int64_t value) const { return value; }
void Ranks::maximum(std::span<std::int64_t>) const {}
std::int64_t Ranks::sum(std::int64_t value) const { return value; }
void Ranks::sum(std::span<std::int64_t>) const {}
std::vector<std::byte> Ranks::allToAll(std::span<const std::byte> send,
                                       std::span<const std::size_t> sendUnits, std::size_t unit,
                                       std::vector<std::size_t>& receivedUnits) const {
  receivedUnits.assign(1, sendUnits[0]);
  return {send.begin(), send.begin() + std::ptrdiff_t(sendUnits[0] * unit)};
}
std::vector<std::size_t> Ranks::allToAllUnits(std::span<const std::size_t> sendUnits) const {
  return {sendUnits[0]};
}
void Ranks::allToAllInto(std::span<const std::byte> send, std::span<const std::size_t> sendUnits,
                         std::span<const std::size_t>, std::size_t unit,
                         std::span<std::byte> into) const {
  std::copy_n(send.begin(), sendUnits[0] * unit, into.begin());
}
std::vector<std::string> Ranks::gatherText(const std::string& text) const { return {text}; }

StreamedGather::StreamedGather(const Ranks& ranks, std::span<std::byte> all,
                               std::span<const std::size_t> units, std::size_t unit)
    : ranks_(ranks), all_(all), units_(units.begin(), units.end()), unit_(unit) {}
void StreamedGather::publish(std::size_t) {}
bool StreamedGather::takeReady() { return true; }
void StreamedGather::finish() {}

}  // namespace nbody
