#pragma once
// Passes over [0, count) on every core that give the bits of one pass on one thread: a pass that
// writes each item's own result (parallelForOrHere), and exact sums (util/exact_sum.h), each range
// into sums of its own, merged (exactSumsOver). Where a thread cannot start (a process limit), the
// pass runs again, whole, on the calling thread.

#include <algorithm>
#include <array>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

#include "util/exact_sum.h"
#include "util/parallel_for.h"

namespace nbody {

// The threads a pass may use: the machine's, one on the web page (which runs no threads).
inline unsigned availableThreads() {
#if defined(__EMSCRIPTEN__)
  return 1;
#else
  return std::max(1u, std::thread::hardware_concurrency());
#endif
}

// body(begin, end) over [0, count) in ranges of at least `minimumPerThread` items; `body` writes
// what it computes (run twice, it gives the same), so a failed start reruns every item here.
template <typename Body>
void parallelForOrHere(std::size_t count, std::size_t minimumPerThread, Body body) {
  try {
    parallelFor(count, availableThreads(), minimumPerThread, body);
  } catch (const std::system_error&) {
    body(std::size_t{0}, count);
  }
}

// The sums addTerms(i, sums) adds for every i in [0, count), in ranges of at least
// `minimumPerThread` items.
template <std::size_t kSums, typename AddTerms>
std::array<ExactSum, kSums> exactSumsOver(std::size_t count, std::size_t minimumPerThread,
                                          AddTerms addTerms) {
  using Sums = std::array<ExactSum, kSums>;
  const unsigned threads = availableThreads();
  std::vector<Sums> ranges(parallelRanges(count, threads, minimumPerThread));
  try {
    parallelForRanges(count, threads, minimumPerThread,
                      [&](std::size_t range, std::size_t begin, std::size_t end) {
                        for (std::size_t i = begin; i < end; ++i) addTerms(i, ranges[range]);
                      });
  } catch (const std::system_error&) {
    ranges.assign(1, Sums{});
    for (std::size_t i = 0; i < count; ++i) addTerms(i, ranges.front());
  }
  Sums sums = ranges.front();
  for (std::size_t r = 1; r < ranges.size(); ++r)
    for (std::size_t s = 0; s < kSums; ++s) sums[s].merge(ranges[r][s]);
  return sums;
}

}  // namespace nbody
