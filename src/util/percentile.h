#pragma once
// Order statistics of samples: the colour ranges, the density's range and the window's histogram
// take a percentile so that a few outliers do not decide a scale.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace nbody {

// The value `permille` thousandths of the way up the sorted values (rank (n - 1) * permille /
// 1000), partly reordering them; `values` must not be empty.
template <typename T>
T valueAtPermille(std::vector<T>& values, int permille) {
  const std::size_t rank = (values.size() - 1) * std::size_t(permille) / 1000;
  std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(rank), values.end());
  return values[rank];
}

}  // namespace nbody
