#pragma once
// Reads GPU states back to the CPU without stalling the GPU: each request copies the state
// textures into the next of `depth` readback memories (gl/readback_memory.h) and fences the copy;
// the oldest state is taken once the ring is full, `depth - 1` requests later, by when the copy
// has long finished. The states come out in order and equal what a synchronous download returns,
// but for the IDs, which the engine keeps (engines/gpu_engine.h): these are 1..N.

#include <optional>
#include <vector>

#include "gl/gpu_state_view.h"
#include "gl/objects.h"
#include "gl/readback_memory.h"
#include "physics/state.h"

namespace nbody::gl {

class AsyncStateReadback {
 public:
  explicit AsyncStateReadback(int depth = 3);
  ~AsyncStateReadback();
  AsyncStateReadback(const AsyncStateReadback&) = delete;
  AsyncStateReadback& operator=(const AsyncStateReadback&) = delete;

  void request(const GpuStateView& view);  // the ring must not be full
  bool full() const { return pending_ == int(slots_.size()); }
  int pending() const { return pending_; }
  State takeOldest();  // waits for the oldest copy if it is still running

 private:
  struct Slot {
    std::optional<ReadbackMemory> memory;
    GLsync fence = nullptr;
    std::size_t bodyCount = 0, texels = 0;
  };
  void ensureCapacity(Slot& slot, std::size_t bytes);

  std::vector<Slot> slots_;
  int oldest_ = 0, pending_ = 0;
};

}  // namespace nbody::gl
