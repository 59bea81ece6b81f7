#pragma once
// C++20 pieces that Emscripten's libc++ 13 (Debian's, the web build's) lacks, in one place:
// std::bit_cast, std::jthread, and std::from_chars and std::to_chars for float and double. Where
// the standard library has them these are they; elsewhere the fallbacks below, which the tests hold
// to the standard library's answers here (tests/cpu/std_compat_test.cpp). Remove each once every
// library has it.

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>

#if defined(__has_include) && __has_include(<bit>)
#include <bit>
#endif

namespace nbody {

namespace compat {

template <typename To, typename From>
To bitCastByCopy(const From& from) {
  static_assert(sizeof(To) == sizeof(From) && std::is_trivially_copyable_v<From> &&
                std::is_trivially_copyable_v<To>);
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

// A thread joined when it goes (std::jthread without its stop token, which nbody does not use).
class JoiningThread : public std::thread {
 public:
  using std::thread::thread;
  JoiningThread(JoiningThread&&) noexcept = default;
  JoiningThread& operator=(JoiningThread&&) = delete;
  ~JoiningThread() {
    if (joinable()) join();
  }
};

// std::from_chars for T = float or double in its general format, by strtof/strtod: the same syntax
// (no white space, no '+', no hexadecimal, "inf" and "nan" in any case), the same end, value left
// as it was on an error; out of range where the number overflows or where nonzero digits become
// 0 (strtod says ERANGE for a subnormal too, which from_chars returns as it is).
template <typename T>
std::from_chars_result fromCharsByStrtod(const char* first, const char* last, T& value) {
  const std::string text(first, last);  // NUL-terminated for strtod
  const char* digits = text.c_str() + (text.starts_with('-') ? 1 : 0);
  const bool hex = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
  const bool starts = std::isdigit((unsigned char)digits[0]) || digits[0] == '.' ||
                      std::strchr("iInN", digits[0]) != nullptr;
  if (!starts) return {first, std::errc::invalid_argument};
  errno = 0;
  char* stop = nullptr;
  const T read = std::is_same_v<T, float> ? T(std::strtof(text.c_str(), &stop))
                                          : T(std::strtod(text.c_str(), &stop));
  if (stop == text.c_str()) return {first, std::errc::invalid_argument};
  if (hex) stop = const_cast<char*>(digits) + 1;  // from_chars reads the "0" alone
  const char* end = first + (stop - text.c_str());
  if (hex) return value = T(text.starts_with('-') ? -0.0 : 0.0), std::from_chars_result{end, {}};
  if (errno == ERANGE && (std::isinf(read) || read == T(0)))
    return {end, std::errc::result_out_of_range};
  value = read;
  return {end, std::errc()};
}

// std::to_chars for T = float or double with no format (the shortest text that reads back to the
// same value: fixed or scientific, whichever is shorter, fixed on a tie), by snprintf: the fewest
// digits of each form that read back, each correctly rounded. NaN and infinities as to_chars
// writes them.
template <typename T>
std::string shortestByPrintf(T value) {
  if (std::isnan(value)) return std::signbit(value) ? "-nan" : "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  const auto readsBack = [value](const std::string& text) {
    return (std::is_same_v<T, float> ? T(std::strtof(text.c_str(), nullptr))
                                     : T(std::strtod(text.c_str(), nullptr))) == value;
  };
  const auto printed = [value](const char* format, int precision) {
    char buffer[400];
    std::snprintf(buffer, sizeof buffer, format, precision, double(value));
    return std::string(buffer);
  };
  std::string scientific, fixed;
  for (int digits = 0; scientific.empty() || !readsBack(scientific); ++digits)
    scientific = printed("%.*e", digits);
  for (int digits = 0; fixed.empty() || !readsBack(fixed); ++digits)
    fixed = printed("%.*f", digits);
  return fixed.size() <= scientific.size() ? fixed : scientific;
}

}  // namespace compat

#if defined(__cpp_lib_bit_cast)
using std::bit_cast;
#else
template <typename To, typename From>
To bit_cast(const From& from) {
  return compat::bitCastByCopy<To>(from);
}
#endif

#if defined(__cpp_lib_jthread)
using JoiningThread = std::jthread;
#else
using JoiningThread = compat::JoiningThread;
#endif

// std::from_chars for every arithmetic type nbody reads; float and double through the fallback
// where the library has no floating-point from_chars (no __cpp_lib_to_chars).
template <typename T>
std::from_chars_result fromChars(const char* first, const char* last, T& value) {
#if !defined(__cpp_lib_to_chars)
  if constexpr (std::is_floating_point_v<T>)
    return compat::fromCharsByStrtod(first, last, value);
  else
#endif
    return std::from_chars(first, last, value);
}

// std::to_chars's shortest text of a float or double, and its scientific text at `precision`
// (printf's %.*e, as the standard defines it).
template <typename T>
std::string shortestText(T value) {
#if defined(__cpp_lib_to_chars)
  char buffer[64];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
#else
  return compat::shortestByPrintf(value);
#endif
}
inline std::string scientificText(double value, int precision) {
  char buffer[64];
#if defined(__cpp_lib_to_chars)
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value,
                                           std::chars_format::scientific, precision)
                                 .ptr);
#else
  std::snprintf(buffer, sizeof buffer, "%.*e", precision, value);
  return buffer;
#endif
}

}  // namespace nbody
