#pragma once
// Reading and writing numbers in a fixed byte order, whatever the machine's: the binary snapshot is
// little-endian, TIPSY files come in either order.

#include <bit>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include "util/std_compat.h"

namespace nbody::bytes {

enum class Order { little, big };

// Appends numbers to a byte string.
class Writer {
 public:
  explicit Writer(Order order) : order_(order) {}

  template <std::unsigned_integral T>
  void put(T value) {
    for (std::size_t k = 0; k < sizeof(T); ++k) {
      const std::size_t shift = 8 * (order_ == Order::little ? k : sizeof(T) - 1 - k);
      bytes_ += char((value >> shift) & 0xFF);
    }
  }
  void put(std::int64_t value) { put(std::uint64_t(value)); }
  void put(std::int32_t value) { put(std::uint32_t(value)); }
  void put(float value) { put(bit_cast<std::uint32_t>(value)); }
  void put(double value) { put(bit_cast<std::uint64_t>(value)); }
  void putBytes(std::string_view raw) { bytes_ += raw; }

  const std::string& bytes() const { return bytes_; }
  void reserve(std::size_t count) { bytes_.reserve(count); }
  std::string take() && { return std::move(bytes_); }  // the bytes, without a copy

 private:
  Order order_;
  std::string bytes_;
};

// Reads numbers from a byte string at increasing offsets. Callers check the length first; reading
// past the end is a logic error.
class Reader {
 public:
  Reader(std::string_view bytes, Order order) : bytes_(bytes), order_(order) {}

  template <std::unsigned_integral T>
  T get() {
    if (offset_ + sizeof(T) > bytes_.size())
      throw std::logic_error("bytes::Reader read past the end");
    T value = 0;
    for (std::size_t k = 0; k < sizeof(T); ++k) {
      const std::size_t shift = 8 * (order_ == Order::little ? k : sizeof(T) - 1 - k);
      value = T(value | (T(static_cast<unsigned char>(bytes_[offset_ + k])) << shift));
    }
    offset_ += sizeof(T);
    return value;
  }
  std::int32_t getInt32() { return bit_cast<std::int32_t>(get<std::uint32_t>()); }
  std::int64_t getInt64() { return bit_cast<std::int64_t>(get<std::uint64_t>()); }
  float getFloat() { return bit_cast<float>(get<std::uint32_t>()); }
  double getDouble() { return bit_cast<double>(get<std::uint64_t>()); }
  std::string_view getBytes(std::size_t count) {
    if (offset_ + count > bytes_.size()) throw std::logic_error("bytes::Reader read past the end");
    offset_ += count;
    return bytes_.substr(offset_ - count, count);
  }
  void skip(std::size_t count) { getBytes(count); }
  std::size_t offset() const { return offset_; }

 private:
  std::string_view bytes_;
  Order order_;
  std::size_t offset_ = 0;
};

}  // namespace nbody::bytes
