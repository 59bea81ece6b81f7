#pragma once
// Host memory a parcel of records passes through between the GPU and MPI: a buffer in the CPU's
// memory mapped for good (client storage, coherent), grown only, so that the GPU's copies fill or
// read it and MPI sends or receives in place, with no allocation and no page fault a round.
// GL 4.5 (a decomposed run's); at the GL 4.1 / ES 3.0 subset nothing calls it.

#include <cstddef>

#include "gl/objects.h"

namespace nbody::gl {

class HostParcel {
 public:
  HostParcel() = default;
  HostParcel(const HostParcel&) = delete;
  HostParcel& operator=(const HostParcel&) = delete;
  ~HostParcel();
  // At least `bytes` of it (the contents lost where it grows), once the GPU's copies are done.
  std::byte* reserve(std::size_t bytes);
  GLuint buffer() const { return buffer_.id(); }
  std::byte* data() const { return mapped_; }
  // After the commands that copy into or out of it: until they are done, wait() waits.
  void fence();
  void wait();

 private:
  Buffer buffer_;
  std::byte* mapped_ = nullptr;
  std::size_t bytes_ = 0;
  GLsync fence_ = nullptr;
};

}  // namespace nbody::gl
