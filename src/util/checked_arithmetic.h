#pragma once
// Counters that must not wrap: step numbers (a snapshot's step plus --steps), snapshot numbers,
// bodies times bytes. Signed overflow is undefined behaviour and unsigned overflow silently wraps,
// so every such sum and product goes through these, which say when the true result does not fit.

#include <concepts>
#include <optional>
#include <stdexcept>
#include <string>

namespace nbody {

template <std::integral T>
std::optional<T> checkedAdd(T a, T b) {
  T sum;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

template <std::integral T>
std::optional<T> checkedMultiply(T a, T b) {
  T product;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

// The same, throwing std::overflow_error that says what was being counted.
template <std::integral T>
T addOrThrow(T a, T b, const std::string& what) {
  if (const auto sum = checkedAdd(a, b)) return *sum;
  throw std::overflow_error(what + ": " + std::to_string(a) + " + " + std::to_string(b) +
                            " does not fit a " + std::to_string(8 * sizeof(T)) + "-bit number");
}

template <std::integral T>
T multiplyOrThrow(T a, T b, const std::string& what) {
  if (const auto product = checkedMultiply(a, b)) return *product;
  throw std::overflow_error(what + ": " + std::to_string(a) + " x " + std::to_string(b) +
                            " does not fit a " + std::to_string(8 * sizeof(T)) + "-bit number");
}

// The first multiple of `every` (> 0) after `value` (>= 0), or nothing where it does not fit.
template <std::integral T>
std::optional<T> nextMultipleAfter(T value, T every) {
  const auto next = checkedAdd(T(value / every), T(1));
  return next ? checkedMultiply(*next, every) : std::nullopt;
}

}  // namespace nbody
