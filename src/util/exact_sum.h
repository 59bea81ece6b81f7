#pragma once
// An exact sum of doubles (a Kulisch accumulator): every finite double is a multiple of 2^-1074
// below 2^1024, so a fixed-point integer of 32-bit digits from 2^-1152 holds any sum of them
// exactly. Adding is exact, so the sum does not depend on the order of the terms or on how they
// were split into partial sums (merge): a sum over bodies gives the same bits for any order of
// the bodies and any number of ranks. value() rounds the exact sum once, to nearest, ties to even.
//
// A term adds to three digits; a digit holds 2^29 such adds before its carries must be pushed up,
// which add() and merge() do as needed. Non-finite terms make the value NaN or an infinity, as a
// floating-point sum would.

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "util/std_compat.h"

namespace nbody {

class ExactSum {
 public:
  void add(double term) {
    if (term == 0.0) return;
    if (!std::isfinite(term)) return addNonFinite(term);
    // |term| = magnitude 2^weight, an integer of at most 53 bits read from the double's bits
    // (normal: the implicit bit and the fraction, 2^(biased exponent - 1075); below: the fraction,
    // 2^-1074); weight >= -1074 > kLowest.
    const auto bits = bit_cast<std::uint64_t>(term);
    const int biased = int((bits >> 52) & 0x7ffu);
    std::uint64_t magnitude = bits & kFractionMask;
    if (biased != 0) magnitude |= kFractionMask + 1;
    const int weight = biased != 0 ? biased - 1075 : -1074;
    const int position = weight - kLowest, shift = position % 32;
    const std::uint64_t low = (magnitude & kDigitMask) << shift;  // < 2^63
    const std::uint64_t high = (magnitude >> 32) << shift;        // < 2^52
    const std::int64_t sign = (bits >> 63) != 0 ? -1 : 1;
    std::int64_t* digit = &digits_[std::size_t(position / 32)];
    digit[0] += sign * std::int64_t(low & kDigitMask);
    digit[1] += sign * std::int64_t((low >> 32) + (high & kDigitMask));  // < 2^33
    digit[2] += sign * std::int64_t(high >> 32);
    countAdds(2);
  }

  // Adds another sum's terms: the result is that of adding all of them here.
  void merge(const ExactSum& other) {
    ExactSum normal = other;
    normal.carry();
    for (std::size_t k = 0; k < kDigits; ++k) digits_[k] += normal.digits_[k];
    nan_ = nan_ || other.nan_;
    positiveInfinity_ = positiveInfinity_ || other.positiveInfinity_;
    negativeInfinity_ = negativeInfinity_ || other.negativeInfinity_;
    countAdds(2);
  }

  // The sum as integers that add: its carried digits (digit k weighs 2^(32 k - 1152); all but the
  // last in [0, 2^32), the last signed), then its count of NaN, +infinity and -infinity terms.
  // Ranks sum across them by adding their parts element by element (fromParts, then value()).
  using Parts = std::array<std::int64_t, 75>;
  Parts parts() const {
    ExactSum normal = *this;
    normal.carry();
    Parts parts{};
    std::copy(normal.digits_.begin(), normal.digits_.end(), parts.begin());
    parts[kDigits] = nan_, parts[kDigits + 1] = positiveInfinity_;
    parts[kDigits + 2] = negativeInfinity_;
    return parts;
  }
  // The sum of the sums whose parts added up to `parts` (at most 2^30 of them).
  static ExactSum fromParts(const Parts& parts) {
    ExactSum sum;
    std::copy(parts.begin(), parts.begin() + std::ptrdiff_t(kDigits), sum.digits_.begin());
    sum.nan_ = parts[kDigits] > 0;
    sum.positiveInfinity_ = parts[kDigits + 1] > 0;
    sum.negativeInfinity_ = parts[kDigits + 2] > 0;
    sum.carry();
    return sum;
  }

  // The exact sum rounded to the nearest double (ties to even; below 2^-1022 rounded again by
  // ldexp, which is the same for equal sums).
  double value() const {
    if (nan_ || (positiveInfinity_ && negativeInfinity_))
      return std::numeric_limits<double>::quiet_NaN();
    if (positiveInfinity_) return std::numeric_limits<double>::infinity();
    if (negativeInfinity_) return -std::numeric_limits<double>::infinity();
    ExactSum normal = *this;
    normal.carry();
    const bool negative = normal.digits_.back() < 0;
    if (negative) normal.negate();
    const double magnitude = normal.roundedMagnitude();
    return negative ? -magnitude : magnitude;
  }

 private:
  static constexpr int kLowest = -1152;       // the weight of digit 0: 2^kLowest
  static constexpr std::size_t kDigits = 72;  // to 2^1152: room for carries above 2^1024
  static_assert(std::tuple_size_v<Parts> == kDigits + 3);
  static constexpr std::uint64_t kDigitMask = 0xffffffffu;
  static constexpr std::uint64_t kFractionMask = (std::uint64_t(1) << 52) - 1;

  void addNonFinite(double term) {
    if (std::isnan(term))
      nan_ = true;
    else if (term > 0)
      positiveInfinity_ = true;
    else
      negativeInfinity_ = true;
  }

  // An add puts less than 2^33 into a digit (a merge 2^32 + 2^32): weight 2 each, and after 2^29
  // of them the digits are carried, long before an int64 could overflow.
  void countAdds(int weight) {
    adds_ += weight;
    if (adds_ >= (std::int64_t(1) << 30)) carry();
  }

  // Digits 0 .. kDigits - 2 into [0, 2^32); the last keeps the sign.
  void carry() {
    for (std::size_t k = 0; k + 1 < kDigits; ++k) {
      const std::int64_t up = digits_[k] >> 32;  // floor division by 2^32
      digits_[k] -= up * (std::int64_t(1) << 32);
      digits_[k + 1] += up;
    }
    adds_ = 0;
  }

  // Two's complement over the carried digits: the magnitude of a negative sum, carried again.
  void negate() {
    for (std::int64_t& digit : digits_) digit = -digit;
    carry();
  }

  // The carried, non-negative fixed-point integer rounded to a double: its 53 leading bits, rounded
  // by the bit below them and whether any further bit is set.
  double roundedMagnitude() const {
    std::size_t top = kDigits;
    while (top > 0 && digits_[top - 1] == 0) --top;
    if (top == 0) return 0.0;
    const int leading =
        int(top - 1) * 32 + int(std::bit_width(std::uint64_t(digits_[top - 1]))) - 1;
    const int lowest = leading >= 52 ? leading - 52 : 0;
    std::uint64_t kept = 0;
    for (int bit = leading; bit >= lowest; --bit) kept = kept << 1 | (bitAt(bit) ? 1u : 0u);
    if (lowest > 0 && bitAt(lowest - 1)) {  // at or past the half
      bool sticky = false;
      for (int bit = 0; bit < lowest - 1 && !sticky; ++bit) sticky = bitAt(bit);
      if (sticky || (kept & 1u)) ++kept;
    }
    return std::ldexp(double(kept), lowest + kLowest);
  }

  bool bitAt(int bit) const {
    return (std::uint64_t(digits_[std::size_t(bit / 32)]) >> (bit % 32)) & 1u;
  }

  std::array<std::int64_t, kDigits> digits_{};
  std::int64_t adds_ = 0;
  bool nan_ = false, positiveInfinity_ = false, negativeInfinity_ = false;
};

}  // namespace nbody
