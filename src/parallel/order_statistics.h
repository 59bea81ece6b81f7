#pragma once
// Order statistics of values held in parts by the ranks (each rank its part), found exactly: a
// radix select on the floats' bits, whose histograms are integer counts summed across ranks. So
// every rank finds the same value, the one std::nth_element finds over all the values in one
// process (but for the sign of a zero: here -0 sorts below +0). docs/decomposed-tree-design.md,
// step 11: the pictures' colour ranges from the parts.

#include <cstddef>
#include <optional>
#include <span>

#include "parallel/ranks.h"

namespace nbody {

// The value `permille` thousandths of the way up every rank's `part` sorted together (rank
// (n - 1) * permille / 1000 of the n values, as util/percentile.h's valueAtPermille), on every
// rank; none when no rank holds a value. The values must not be NaN. -0 counts as below +0. Every
// rank calls it alike.
std::optional<float> valueAtPermilleOfParts(std::span<const float> part, int permille,
                                            const Ranks& ranks);

}  // namespace nbody
