#include "engines/tree/tree_buffers.h"

#include <algorithm>

namespace nbody::tree {
namespace {

// Bytes per element of each buffer, and how many elements `bodies` bodies need.
std::size_t bytesOf(Binding binding, std::size_t bodies) {
  const std::size_t groups = (bodies + kSmallestGroup - 1) / kSmallestGroup;
  const std::size_t blocks = (bodies + kSortBlock - 1) / kSortBlock;
  switch (binding) {
    case kBounds: return 6 * 4;
    case kKeysIn: case kKeysOut: return bodies * 8;
    case kValuesIn: case kValuesOut: case kVisits: return bodies * 4;
    case kBlockCounts: return kRadix * blocks * 4;
    case kDigitTotals: return kRadix * 4;
    case kSortedBodies: case kNodeBoxMin: case kNodeBoxMax: return bodies * 16;
    // Two 16-byte vectors a node, N - 1 nodes: 64M bodies take 32 bytes under 2 GiB, so a GPU whose storage
    // blocks end at 2 GiB still holds them.
    case kNodeTest: case kNodeQuad: return (std::max<std::size_t>(bodies, 2) - 1) * 32;
    case kParents: return bodies * 2 * 4;
    case kGroupStats: return groups * 16;
    case kPotential: return groups * 8;
    case kSumIn: case kSumOut: return std::max<std::size_t>(1, (groups + 255) / 256) * 8;
    case kSpill: return spillSlotsFor(bodies) * (1 + kSpillSlotNodes) * 4;  // taken flags, then the slots
    case kBindingCount: break;
  }
  return 0;
}

}  // namespace

std::size_t spillSlotsFor(std::size_t bodies) {
  return std::min(kSpillSlots, std::max<std::size_t>(1, (bodies + kSmallestGroup - 1) / kSmallestGroup));
}

BufferSizes bufferSizesFor(std::size_t bodies) {
  BufferSizes sizes;
  for (GLuint b = 0; b < kBindingCount; ++b) {
    const std::size_t bytes = bytesOf(Binding(b), bodies);
    sizes.total += bytes;
    sizes.largest = std::max(sizes.largest, bytes);
  }
  return sizes;
}

void TreeBuffers::reserve(std::size_t bodies) {
  if (bodies <= capacity_) return;
  for (GLuint b = 0; b < kBindingCount; ++b) {
    buffers_[b] = gl::Buffer::create();
    glNamedBufferStorage(buffers_[b].id(), GLsizeiptr(bytesOf(Binding(b), bodies)), nullptr,
                         GL_DYNAMIC_STORAGE_BIT);
  }
  // Every slot free: each walk gives back what it takes, so this holds from now on.
  glClearNamedBufferSubData(buffers_[kSpill].id(), GL_R32UI, 0, GLsizeiptr(spillSlotsFor(bodies) * 4), GL_RED_INTEGER,
                            GL_UNSIGNED_INT, nullptr);
  capacity_ = bodies;
}

void TreeBuffers::bindAll() const {
  for (GLuint b = 0; b < kBindingCount; ++b) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, b, buffers_[b].id());
}

void TreeBuffers::bindSortPass(int pass) const {
  const bool even = pass % 2 == 0;
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kKeysIn, buffers_[even ? kKeysIn : kKeysOut].id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kValuesIn, buffers_[even ? kValuesIn : kValuesOut].id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kKeysOut, buffers_[even ? kKeysOut : kKeysIn].id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kValuesOut, buffers_[even ? kValuesOut : kValuesIn].id());
}

}  // namespace nbody::tree
