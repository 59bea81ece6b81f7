#pragma once
// Work split over threads: body(begin, end) over [0, count) in up to `threads` contiguous ranges of
// at least `minimumPerThread` items (fewer ranges where count is small), the first on the calling
// thread; it returns when every range is done.

#include <algorithm>
#include <cstddef>
#include <vector>

#include "util/std_compat.h"

namespace nbody {

// The number of ranges parallelFor splits `count` into.
inline std::size_t parallelRanges(std::size_t count, unsigned threads,
                                  std::size_t minimumPerThread) {
  return std::clamp<std::size_t>(count / std::max<std::size_t>(minimumPerThread, 1), 1,
                                 std::max(threads, 1u));
}

// body(range, begin, end) for range 0, 1, ... of parallelRanges(count, threads, minimumPerThread).
template <typename Body>
void parallelForRanges(std::size_t count, unsigned threads, std::size_t minimumPerThread,
                       Body body) {
  const std::size_t used = parallelRanges(count, threads, minimumPerThread);
  if (used == 1) return body(std::size_t{0}, std::size_t{0}, count);
  std::vector<JoiningThread> workers;
  const std::size_t chunk = (count + used - 1) / used;
  for (std::size_t begin = chunk, range = 1; begin < count; begin += chunk, ++range)
    workers.emplace_back([=] { body(range, begin, std::min(count, begin + chunk)); });
  body(std::size_t{0}, std::size_t{0}, std::min(count, chunk));
}

template <typename Body>
void parallelFor(std::size_t count, unsigned threads, std::size_t minimumPerThread, Body body) {
  parallelForRanges(count, threads, minimumPerThread,
                    [&body](std::size_t, std::size_t begin, std::size_t end) { body(begin, end); });
}

}  // namespace nbody
