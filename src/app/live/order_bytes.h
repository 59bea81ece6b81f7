#pragma once
// The bytes rank 0 broadcasts to the other ranks of a distributed window (frame_orders.h,
// parts_calls.h): trivially copyable values as they lie in memory (every rank runs the same build
// on the same kind of machine), texts with their length first.

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace nbody {

class OrderWriter {
 public:
  template <typename T>
  void plain(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* bytes = reinterpret_cast<const std::byte*>(&value);
    bytes_.insert(bytes_.end(), bytes, bytes + sizeof value);
  }
  void text(const std::string& value) {
    plain(value.size());
    const auto* bytes = reinterpret_cast<const std::byte*>(value.data());
    bytes_.insert(bytes_.end(), bytes, bytes + value.size());
  }
  // For a visitor of fields (parts_calls.cpp): a text as text(), any other field as plain().
  template <typename T>
  void operator()(const T& field) {
    if constexpr (std::is_same_v<T, std::string>)
      text(field);
    else
      plain(field);
  }
  std::vector<std::byte> take() { return std::move(bytes_); }

 private:
  std::vector<std::byte> bytes_;
};

class OrderReader {
 public:
  explicit OrderReader(const std::vector<std::byte>& bytes) : bytes_(bytes) {}
  template <typename T>
  T plain() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    take(&value, sizeof value);
    return value;
  }
  std::string text() {
    std::string value(plain<std::size_t>(), '\0');
    take(value.data(), value.size());
    return value;
  }
  template <typename T>
  void operator()(T& field) {
    if constexpr (std::is_same_v<T, std::string>)
      field = text();
    else
      field = plain<T>();
  }

 private:
  void take(void* into, std::size_t size) {
    if (size > bytes_.size() - at_) throw std::logic_error("a frame order ends early");
    std::memcpy(into, bytes_.data() + at_, size);
    at_ += size;
  }
  const std::vector<std::byte>& bytes_;
  std::size_t at_ = 0;
};

}  // namespace nbody
