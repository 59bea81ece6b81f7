#pragma once
// An 8-bit RGBA picture in memory, rows from the top: what `shot` reads back, PNG files hold and
// `compare` compares.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nbody {

struct Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgba;  // 4 bytes per pixel, row after row, the top row first

  Image() = default;
  Image(int w, int h) : width(w), height(h), rgba(std::size_t(w) * std::size_t(h) * 4, 0) {}
  std::uint8_t* pixel(int x, int y) { return rgba.data() + offset(x, y); }
  const std::uint8_t* pixel(int x, int y) const { return rgba.data() + offset(x, y); }

 private:
  std::size_t offset(int x, int y) const {
    return (std::size_t(y) * std::size_t(width) + std::size_t(x)) * 4;
  }
};

}  // namespace nbody
