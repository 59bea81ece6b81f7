// The fallbacks of util/std_compat.h, for the standard libraries that lack a C++20 piece (the web
// build's libc++ 13), held here to what this machine's standard library answers.

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "util/std_compat.h"

namespace nbody {
namespace {

// Texts std::from_chars reads, stops within, or refuses: signs, white space, hexadecimal,
// infinities and NaNs, overflow, subnormals, underflow to 0, and the edges of float and double.
const std::vector<std::string> kNumberTexts = {"0",
                                               "-0",
                                               "1",
                                               "1.5",
                                               ".5",
                                               "-.5",
                                               "5.",
                                               "1e10",
                                               "1e-10",
                                               "1.5abc",
                                               "abc",
                                               "",
                                               "-",
                                               "+1",
                                               " 1",
                                               "inf",
                                               "-INF",
                                               "infinity",
                                               "nan",
                                               "NaN",
                                               "-nan",
                                               "nan(123)",
                                               "0x1p3",
                                               "-0x10",
                                               "1e400",
                                               "-1e400",
                                               "1e-400",
                                               "-1e-400",
                                               "1e-310",
                                               "4.9e-324",
                                               "2e-324",
                                               "3e-324",
                                               "1e-45",
                                               "1e-46",
                                               "7e-46",
                                               "1.17549435e-38",
                                               "3.4028235e38",
                                               "3.4028236e38",
                                               "3.5e38",
                                               "1e39",
                                               "1e",
                                               "1e+",
                                               "1e-",
                                               "12345678901234567890123",
                                               "0.1234567890123456789",
                                               "1,5",
                                               "e5",
                                               "-e5",
                                               "..5",
                                               "2.2250738585072011e-308",
                                               "1.7976931348623157e308",
                                               "1.7976931348623159e308"};

template <typename T>
void expectTheStandardLibrarysAnswers() {
  for (const std::string& text : kNumberTexts) {
    const char* first = text.data();
    const char* last = first + text.size();
    T fallback = T(42), standard = T(42);
    const auto byStrtod = compat::fromCharsByStrtod(first, last, fallback);
    const auto byLibrary = std::from_chars(first, last, standard);
    EXPECT_EQ(byStrtod.ec, byLibrary.ec) << "'" << text << "'";
    EXPECT_EQ(byStrtod.ptr - first, byLibrary.ptr - first) << "'" << text << "'";
    if (std::isnan(standard))
      EXPECT_TRUE(std::isnan(fallback)) << "'" << text << "'";
    else
      EXPECT_EQ(bit_cast<std::uint64_t>(double(fallback)),
                bit_cast<std::uint64_t>(double(standard)))
          << "'" << text << "': " << fallback << " against " << standard;
  }
}

TEST(StdCompat, FromCharsByStrtodReadsDoublesAsTheStandardLibraryDoes) {
  expectTheStandardLibrarysAnswers<double>();
}

TEST(StdCompat, FromCharsByStrtodReadsFloatsAsTheStandardLibraryDoes) {
  expectTheStandardLibrarysAnswers<float>();
}

// The shortest texts of std::to_chars, fixed or scientific: integers, fractions, powers of ten at
// the form's turn, the largest and smallest of each type, subnormals, and 2000 values of random
// bits of each type.
template <typename T, typename Bits>
void expectTheShortestTextsOfToChars() {
  std::vector<T> values = {T(0),
                           T(-0.0),
                           T(1),
                           T(-1.5),
                           T(0.1),
                           T(1) / T(3),
                           T(123456789),
                           T(1e15),
                           T(1e16),
                           T(1e17),
                           T(1e-4),
                           T(1e-5),
                           T(1e22),
                           T(2.5e-7),
                           std::numeric_limits<T>::max(),
                           std::numeric_limits<T>::min(),
                           std::numeric_limits<T>::denorm_min(),
                           T(1.2345678901234568e20),
                           std::numeric_limits<T>::infinity(),
                           -std::numeric_limits<T>::infinity(),
                           std::numeric_limits<T>::quiet_NaN()};
  std::mt19937_64 random(41);
  while (values.size() < 2021) {
    const T value = std::bit_cast<T>(Bits(random()));
    if (std::isfinite(value)) values.push_back(value);
  }
  for (const T value : values) {
    char buffer[64];
    const std::string standard(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
    EXPECT_EQ(compat::shortestByPrintf(value), standard);
  }
}

TEST(StdCompat, ShortestByPrintfWritesTheShortestTextsOfToChars) {
  expectTheShortestTextsOfToChars<double, std::uint64_t>();
  expectTheShortestTextsOfToChars<float, std::uint32_t>();
}

TEST(StdCompat, BitCastByCopyGivesTheBitsOfStdBitCast) {
  for (const double value : {0.0, -0.0, 1.5, -3.25e-300, 1e308})
    EXPECT_EQ(compat::bitCastByCopy<std::uint64_t>(value), std::bit_cast<std::uint64_t>(value));
  EXPECT_EQ(compat::bitCastByCopy<std::uint32_t>(1.5f), std::bit_cast<std::uint32_t>(1.5f));
}

// Each thread has run to its end once the vector that holds them is gone, as with std::jthread.
TEST(StdCompat, AJoiningThreadIsJoinedWhenItGoes) {
  std::atomic<int> finished{0};
  {
    std::vector<compat::JoiningThread> threads;
    for (int k = 0; k < 8; ++k)
      threads.emplace_back([&finished] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        ++finished;
      });
  }
  EXPECT_EQ(finished.load(), 8);
}

}  // namespace
}  // namespace nbody
