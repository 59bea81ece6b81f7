#include "gl/pixel_readback.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "gl/fence_wait.h"
#include "gl/state_guard.h"

namespace nbody::gl {
namespace {

double secondsSince(std::chrono::steady_clock::time_point began) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
}

}  // namespace

PixelReadbackRing::PixelReadbackRing(glm::ivec2 size, int depth)
    : size_(size), slots_(std::size_t(std::max(depth, 1))) {
  const std::size_t bytes = std::size_t(size.x) * std::size_t(size.y) * 4;
  for (Slot& slot : slots_) slot.memory.emplace(bytes);
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
    PackStateGuard pack(slot.memory->packBuffer());  // RGBA8 rows are whole words: no padding
    glReadPixels(corner.x, corner.y, size_.x, size_.y, GL_RGBA, GL_UNSIGNED_BYTE,
                 slot.memory->destination(0));
  }
  slot.fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  ++pending_;
}

PixelReadbackRing::Pixels PixelReadbackRing::takeOldest() {
  if (pending_ == 0) throw std::logic_error("PixelReadbackRing::takeOldest with nothing pending");
  const int index = oldest_;
  Slot& slot = slots_[std::size_t(index)];
  const auto began = std::chrono::steady_clock::now();
  waitForFence(slot.fence, "a picture's readback");
  copyWaitSeconds_ += secondsSince(began);
  glDeleteSync(slot.fence);
  slot.fence = nullptr;
  {
    const std::lock_guard lock(mutex_);
    slot.held = true;
  }
  oldest_ = (oldest_ + 1) % int(slots_.size());
  --pending_;
  return {slot.memory->data(), index};
}

void PixelReadbackRing::release(int slot) {
  {
    const std::lock_guard lock(mutex_);
    slots_.at(std::size_t(slot)).held = false;
  }
  released_.notify_all();
}

}  // namespace nbody::gl
