#pragma once
// Memory that readbacks land in and the CPU reads: at GL 4.5 a pixel-buffer object mapped for
// good, in the CPU's cached memory (reads from it are fast), that the GPU fills while the CPU
// goes on; at the GL 4.1 / ES 3.0 subset (gl/level.h), which maps no buffer for good, plain
// memory that glReadPixels fills before it returns.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gl/objects.h"

namespace nbody::gl {

class ReadbackMemory {
 public:
  explicit ReadbackMemory(std::size_t bytes);  // throws where the buffer cannot be mapped
  ReadbackMemory(ReadbackMemory&&) noexcept = default;
  ReadbackMemory& operator=(ReadbackMemory&&) noexcept = default;

  const std::uint8_t* data() const { return mapped_; }
  std::size_t bytes() const { return bytes_; }
  // What to bind as GL_PIXEL_PACK_BUFFER for a read into this memory (0: none), and what a read
  // to `offset` of it passes as its pixels' address.
  GLuint packBuffer() const { return buffer_.id(); }
  void* destination(std::size_t offset) const;

 private:
  Buffer buffer_;
  std::vector<std::uint8_t> host_;
  const std::uint8_t* mapped_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace nbody::gl
