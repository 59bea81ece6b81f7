#include "gl/pixel_readback.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "gl/state_guard.h"
#include "util/system_limits.h"

namespace nbody::gl {
namespace {

double secondsSince(std::chrono::steady_clock::time_point began) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
}

}  // namespace

PixelReadbackRing::PixelReadbackRing(glm::ivec2 size, int depth)
    : size_(size), slots_(std::size_t(std::max(depth, 1))) {
  const GLsizeiptr bytes = GLsizeiptr(size.x) * GLsizeiptr(size.y) * 4;
  // Client storage: the buffers live in the CPU's cached memory, where reading them is fast.
  const GLbitfield flags = GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
  for (Slot& slot : slots_) {
    slot.buffer = Buffer::create();
    glNamedBufferStorage(slot.buffer.id(), bytes, nullptr, flags | GL_CLIENT_STORAGE_BIT);
    slot.mapped =
        static_cast<const std::uint8_t*>(glMapNamedBufferRange(slot.buffer.id(), 0, bytes, flags));
    if (!slot.mapped)
      throw std::runtime_error("could not map a pixel-buffer object for reading pictures back" +
                               limitsThatMayBeBehind());
  }
}

PixelReadbackRing::~PixelReadbackRing() {
  for (Slot& slot : slots_)
    if (slot.fence) glDeleteSync(slot.fence);
}

void PixelReadbackRing::request(glm::ivec2 corner) {
  if (full()) throw std::logic_error("PixelReadbackRing::request on a full ring");
  const int index = (oldest_ + pending_) % int(slots_.size());
  Slot& slot = slots_[std::size_t(index)];
  {
    std::unique_lock lock(mutex_);
    const auto began = std::chrono::steady_clock::now();
    released_.wait(lock, [&] { return !slot.held; });
    heldWaitSeconds_ += secondsSince(began);
  }
  {
    PackStateGuard pack(slot.buffer.id());  // RGBA8 rows are whole words: no padding between rows
    glReadPixels(corner.x, corner.y, size_.x, size_.y, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  }
  slot.fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  ++pending_;
}

PixelReadbackRing::Pixels PixelReadbackRing::takeOldest() {
  if (pending_ == 0) throw std::logic_error("PixelReadbackRing::takeOldest with nothing pending");
  const int index = oldest_;
  Slot& slot = slots_[std::size_t(index)];
  const auto began = std::chrono::steady_clock::now();
  const GLuint64 oneSecond = 1'000'000'000;
  while (glClientWaitSync(slot.fence, GL_SYNC_FLUSH_COMMANDS_BIT, oneSecond) ==
         GL_TIMEOUT_EXPIRED) {
  }
  copyWaitSeconds_ += secondsSince(began);
  glDeleteSync(slot.fence);
  slot.fence = nullptr;
  {
    const std::lock_guard lock(mutex_);
    slot.held = true;
  }
  oldest_ = (oldest_ + 1) % int(slots_.size());
  --pending_;
  return {slot.mapped, index};
}

void PixelReadbackRing::release(int slot) {
  {
    const std::lock_guard lock(mutex_);
    slots_.at(std::size_t(slot)).held = false;
  }
  released_.notify_all();
}

}  // namespace nbody::gl
