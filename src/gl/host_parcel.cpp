#include "gl/host_parcel.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "gl/desktop_calls.h"
#include "gl/fence_wait.h"

namespace nbody::gl {

HostParcel::HostParcel(HostParcel&& other) noexcept
    : buffer_(std::move(other.buffer_)),
      mapped_(std::exchange(other.mapped_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      fence_(std::exchange(other.fence_, nullptr)) {}

HostParcel& HostParcel::operator=(HostParcel&& other) noexcept {
  if (this == &other) return *this;
  if (fence_) glDeleteSync(fence_);
  buffer_ = std::move(other.buffer_);
  mapped_ = std::exchange(other.mapped_, nullptr);
  bytes_ = std::exchange(other.bytes_, 0);
  fence_ = std::exchange(other.fence_, nullptr);
  return *this;
}

HostParcel::~HostParcel() {
  if (fence_) glDeleteSync(fence_);
}

std::byte* HostParcel::reserve(std::size_t bytes) {
  wait();
  if (bytes <= bytes_ && mapped_) return mapped_;
#if !defined(GL_VERSION_4_5)
  throw std::logic_error("a parcel's host memory needs OpenGL 4.5");
#else
  // An eighth more than asked, at most 256 MiB more: a LET round's parcels grow by a little most
  // evaluations, and each new one is host memory the driver pins anew (performance-history round
  // 53 has what that cost).
  constexpr std::size_t kMostSpare = std::size_t(256) << 20,
                        kLargest = std::size_t(std::numeric_limits<GLsizeiptr>::max());
  if (bytes > kLargest)
    throw std::runtime_error(std::to_string(bytes) + " bytes for a parcel: more than GL sizes");
  bytes_ = std::max<std::size_t>(bytes + std::min({bytes / 8, kMostSpare, kLargest - bytes}), 256);
  buffer_ = Buffer::create();
  const GLbitfield flags =
      GL_MAP_READ_BIT | GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
  glNamedBufferStorage(buffer_.id(), GLsizeiptr(bytes_), nullptr, flags | GL_CLIENT_STORAGE_BIT);
  mapped_ =
      static_cast<std::byte*>(glMapNamedBufferRange(buffer_.id(), 0, GLsizeiptr(bytes_), flags));
  if (!mapped_)
    throw std::runtime_error("could not map " + std::to_string(bytes_) + " bytes for a parcel");
  return mapped_;
#endif
}

void HostParcel::fence() {
  if (fence_) glDeleteSync(fence_);
  fence_ = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
}

void HostParcel::wait() {
  if (!fence_) return;
  waitForFence(fence_, "a parcel's copies");
  glDeleteSync(fence_);
  fence_ = nullptr;
}

void readThrough(HostParcel& parcel, GLuint buffer, std::size_t offset, std::size_t bytes,
                 void* out) {
  if (bytes == 0) return;
  std::byte* host = parcel.reserve(bytes);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glCopyNamedBufferSubData(buffer, parcel.buffer(), GLintptr(offset), 0, GLsizeiptr(bytes));
  parcel.fence();
  parcel.wait();
  std::memcpy(out, host, bytes);
}

}  // namespace nbody::gl
