#include "parallel/order_statistics.h"

#include <array>
#include <cstdint>
#include <vector>

#include "util/std_compat.h"

namespace nbody {
namespace {

constexpr int kDigitBits = 8;
constexpr std::size_t kBins = std::size_t(1) << kDigitBits;

// The float's bits made to sort as the floats do: positives above negatives, larger magnitudes of
// negatives below.
std::uint32_t sortingKeyOf(float value) {
  const auto bits = bit_cast<std::uint32_t>(value);
  return (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
}

float valueOfSortingKey(std::uint32_t key) {
  return bit_cast<float>((key & 0x80000000u) != 0 ? key & 0x7fffffffu : ~key);
}

// How many of the values whose keys start with `prefix` (its `known` leading bits) have each
// next digit, on every rank.
std::array<std::int64_t, kBins> digitCounts(std::span<const float> part, std::uint32_t prefix,
                                            int known, const Ranks& ranks) {
  std::array<std::int64_t, kBins> counts{};
  const int shift = 32 - known - kDigitBits;
  for (const float value : part) {
    const std::uint32_t key = sortingKeyOf(value);
    if (known > 0 && (key >> (32 - known)) != (prefix >> (32 - known))) continue;
    ++counts[(key >> shift) & (kBins - 1)];
  }
  ranks.sum(counts);
  return counts;
}

}  // namespace

std::optional<float> valueAtPermilleOfParts(std::span<const float> part, int permille,
                                            const Ranks& ranks) {
  const std::int64_t count = ranks.sum(std::int64_t(part.size()));
  if (count == 0) return std::nullopt;
  // The rank wanted among the values left, which share the prefix found so far.
  auto wanted = std::int64_t(std::uint64_t(count - 1) * std::uint64_t(permille) / 1000);
  std::uint32_t prefix = 0;
  for (int known = 0; known < 32; known += kDigitBits) {
    const std::array<std::int64_t, kBins> counts = digitCounts(part, prefix, known, ranks);
    std::size_t digit = 0;
    while (wanted >= counts[digit]) wanted -= counts[digit++];
    prefix |= std::uint32_t(digit) << (32 - known - kDigitBits);
  }
  return valueOfSortingKey(prefix);
}

}  // namespace nbody
