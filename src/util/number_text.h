#pragma once
// The one reader of numbers a person types (every option of every command, every engine setting
// given with --set, the fields of --camera and --color-range): the text is read as the type the
// value is stored in, decimal only (no hex, no blanks), finite, within bounds, and the value
// stored is the value checked. What it refuses, it says in words that name the problem: "not a
// number", "out of range" (too large for the type), "too small" (so close to 0 that the type
// would make it 0), "must be > 0".

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "util/printable_text.h"
#include "util/std_compat.h"

namespace nbody {

// Where a number may lie. Every one is finite as well: NaN and infinity are refused whatever the
// bounds (a NaN passes any comparison, so a range alone lets it through).
struct NumberBounds {
  double low = -HUGE_VAL, high = HUGE_VAL;
  bool lowIncluded = true;
};
inline NumberBounds positive() { return {0.0, HUGE_VAL, false}; }
inline NumberBounds nonNegative() { return {0.0, HUGE_VAL, true}; }
inline NumberBounds within(double low, double high) { return {low, high, true}; }

// A number in its short form ("1e+06", "0.001"), as messages show them.
inline std::string shortNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// "in [0, 0.99]", "> 0", "finite".
inline std::string boundsText(const NumberBounds& bounds) {
  const std::string low = shortNumber(bounds.low), high = shortNumber(bounds.high);
  if (bounds.high != HUGE_VAL)
    return std::string("in ") + (bounds.lowIncluded ? "[" : "(") + low + ", " + high + "]";
  if (bounds.low == -HUGE_VAL) return "finite";
  return (bounds.lowIncluded ? ">= " : "> ") + low;
}

// "float32" or "double", for messages.
template <typename T>
constexpr const char* numberTypeName() {
  return sizeof(T) == sizeof(float) ? "float32" : "double";
}

// `text` read into `value` as a finite T within `bounds`: nothing, or the complaint. A number in a
// T's subnormal range becomes that subnormal, as a conversion makes it; one that would become 0
// is refused as too small, and one beyond the T's largest as out of range.
template <typename T>
std::string readNumber(const std::string& text, const NumberBounds& bounds, T& value) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "'" + ... once inlined.
  std::string shown(1, '\'');
  shown.append(printable(text, 40)).append(1, '\'');
  const std::string_view digits = std::string_view(text).substr(text.starts_with('+') ? 1 : 0);
  const char* const end = digits.data() + digits.size();
  auto [stop, error] = fromChars(digits.data(), end, value);
  if (digits.empty() || stop != end ||
      (error != std::errc() && error != std::errc::result_out_of_range))
    return shown + " is not a number";
  if (error == std::errc::result_out_of_range) {
    // The syntax is checked: strtold reads the same decimal text, wider (to tell large from small).
    const long double wide = std::strtold(std::string(digits).c_str(), nullptr);
    if (std::fabs(wide) > (long double)std::numeric_limits<T>::max())
      return shown + " is out of range (a " + numberTypeName<T>() + " holds up to about " +
             shortNumber(double(std::numeric_limits<T>::max())) + ")";
    value = T(wide);
    if (value == T(0))
      return shown + " is too small: a " + numberTypeName<T>() +
             " would make it 0 (its smallest is about " +
             shortNumber(double(std::numeric_limits<T>::denorm_min())) + ")";
  }
  if (!std::isfinite(value)) return "must be finite, got " + printable(text, 40);
  const double number = double(value);
  if (number < bounds.low || (!bounds.lowIncluded && number == bounds.low) || number > bounds.high)
    return "must be " + boundsText(bounds) + ", got " + printable(text, 40);
  return {};
}

// `text` read into `value` as a whole number within [low, high]: nothing, or the complaint.
template <typename T>
std::string readInteger(const std::string& text, T low, T high, T& value) {
  const std::string_view digits = std::string_view(text).substr(text.starts_with('+') ? 1 : 0);
  const char* const end = digits.data() + digits.size();
  const auto [stop, error] = fromChars(digits.data(), end, value);
  const bool allRead = !digits.empty() && stop == end;
  if (allRead && error == std::errc::result_out_of_range)
    return "must be in [" + std::to_string(low) + ", " + std::to_string(high) + "], got " +
           printable(text, 40);
  if (!allRead || error != std::errc()) return quoted(text, 40) + " is not a whole number";
  if (value < low || value > high)
    return "must be in [" + std::to_string(low) + ", " + std::to_string(high) + "], got " +
           printable(text, 40);
  return {};
}

}  // namespace nbody
