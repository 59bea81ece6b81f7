#include "gl/state_readback.h"

#include <stdexcept>

#include "gl/fence_wait.h"
#include "gl/texture_rows.h"

namespace nbody::gl {

AsyncStateReadback::AsyncStateReadback(int depth) : slots_(std::size_t(std::max(depth, 1))) {}

AsyncStateReadback::~AsyncStateReadback() {
  for (Slot& slot : slots_)
    if (slot.fence) glDeleteSync(slot.fence);
}

void AsyncStateReadback::ensureCapacity(Slot& slot, std::size_t bytes) {
  if (!slot.memory || slot.memory->bytes() < bytes) slot.memory.emplace(bytes);
}

void AsyncStateReadback::request(const GpuStateView& view) {
  if (full()) throw std::logic_error("AsyncStateReadback::request on a full ring");
  Slot& slot = slots_[std::size_t(oldest_ + pending_) % slots_.size()];
  slot.texels = std::size_t(view.size.x) * std::size_t(view.size.y);
  slot.bodyCount = view.bodyCount;
  const std::size_t half = slot.texels * 4 * sizeof(float);
  ensureCapacity(slot, 2 * half);
  memoryBarrier(barrier::textureUpdate | barrier::pixelBuffer);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, slot.memory->packBuffer());
  const TextureShape shape{{view.size.x, view.size.y, 1}, GL_RGBA, GL_FLOAT, 16};
  readTextureRows(view.positionMassTexture, shape, slot.memory->destination(0));
  readTextureRows(view.velocityTexture, shape, slot.memory->destination(half));
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  slot.fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  ++pending_;
}

State AsyncStateReadback::takeOldest() {
  if (pending_ == 0) throw std::logic_error("AsyncStateReadback::takeOldest with nothing pending");
  Slot& slot = slots_[std::size_t(oldest_)];
  waitForFence(slot.fence, "a state readback");
  glDeleteSync(slot.fence);
  slot.fence = nullptr;
  State state;
  state.resize(slot.bodyCount);
  const float* positionMass = reinterpret_cast<const float*>(slot.memory->data());
  const float* velocity = positionMass + slot.texels * 4;
  for (std::size_t i = 0; i < slot.bodyCount; ++i) {
    state.positionMass[i] = glm::vec4(positionMass[4 * i], positionMass[4 * i + 1],
                                      positionMass[4 * i + 2], positionMass[4 * i + 3]);
    state.velocity[i] = glm::vec4(velocity[4 * i], velocity[4 * i + 1], velocity[4 * i + 2], 0.0f);
    state.component[i] =
        std::uint8_t(velocity[4 * i + 3]);  // the texel's w (engines/stage_textures.h)
  }
  oldest_ = (oldest_ + 1) % int(slots_.size());
  --pending_;
  return state;
}

}  // namespace nbody::gl
