#pragma once
// Host memory a parcel of records passes through between the GPU and MPI: a buffer in the CPU's
// memory mapped for good (client storage, coherent), grown only (an eighth more, at most 256 MiB),
// so that the GPU's copies fill or read it and MPI sends or receives in place, with no allocation
// and no page fault a round. GL 4.5 (a decomposed run's); at the GL 4.1 / ES 3.0 subset nothing
// calls it.

#include <cstddef>

#include "gl/objects.h"

namespace nbody::gl {

class HostParcel {
 public:
  HostParcel() = default;
  HostParcel(HostParcel&& other) noexcept;
  HostParcel& operator=(HostParcel&& other) noexcept;
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

// `bytes` from `offset` of `buffer` into `out`, through `parcel` (copied on the GPU into its host
// memory, waited for, then copied out): on an H200, glGetNamedBufferSubData of a few kilobytes of
// a large buffer took 12-20 ms (performance-history round 36); this takes the copy's time.
void readThrough(HostParcel& parcel, GLuint buffer, std::size_t offset, std::size_t bytes,
                 void* out);

}  // namespace nbody::gl
