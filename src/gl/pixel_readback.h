#pragma once
// Reads pictures back from the GPU without stalling it: each request copies the bound read
// framebuffer's pixels into the next of `depth` readback memories (gl/readback_memory.h) and fences
// the copy, and returns at once. The oldest copy is taken a few requests later, by when it has long
// finished, and stays readable (from any thread: an encoder's) until it is released. A request
// waits only when the buffer it needs is still held: whoever reads the pictures is that far behind.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include <glm/vec2.hpp>

#include "gl/objects.h"
#include "gl/readback_memory.h"

namespace nbody::gl {

class PixelReadbackRing {
 public:
  PixelReadbackRing(glm::ivec2 size, int depth);  // needs a current OpenGL context
  ~PixelReadbackRing();
  PixelReadbackRing(const PixelReadbackRing&) = delete;
  PixelReadbackRing& operator=(const PixelReadbackRing&) = delete;

  glm::ivec2 size() const { return size_; }
  // Copies the rectangle of size() at `corner` (its lower left, in OpenGL's pixels) of the bound
  // read framebuffer's read buffer, as RGBA8. The ring must not be full of pending copies.
  void request(glm::ivec2 corner = {0, 0});
  int pending() const { return pending_; }
  bool full() const { return pending_ == int(slots_.size()); }

  struct Pixels {
    const std::uint8_t* bottomRow;  // rows bottom up, as OpenGL counts them, 4 * size.x bytes each
    int slot;                       // what to release
  };
  // The oldest pending copy; waits for it if the GPU has not finished it yet.
  Pixels takeOldest();
  // Gives a taken copy's buffer back for another request. Safe from any thread.
  void release(int slot);

  // Seconds spent waiting: for copies to finish (takeOldest), for held buffers (request).
  double copyWaitSeconds() const { return copyWaitSeconds_; }
  double heldWaitSeconds() const { return heldWaitSeconds_; }

 private:
  struct Slot {
    std::optional<ReadbackMemory> memory;
    GLsync fence = nullptr;
    bool held = false;  // taken and not yet released; guarded by mutex_
  };

  glm::ivec2 size_;
  std::vector<Slot> slots_;
  int oldest_ = 0, pending_ = 0;
  std::mutex mutex_;
  std::condition_variable released_;
  double copyWaitSeconds_ = 0.0, heldWaitSeconds_ = 0.0;
};

}  // namespace nbody::gl
