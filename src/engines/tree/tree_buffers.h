#pragma once
// The GPU buffers of the tree (tree_layout.h lists what each holds), sized by N and grown only: an
// evaluation at the same or a smaller N allocates nothing.

#include <array>
#include <cstddef>

#include "engines/tree/tree_layout.h"
#include "engines/tree/tree_settings.h"
#include "gl/objects.h"

namespace nbody::tree {

constexpr std::size_t kSmallestGroup = 16;  // TreeSettings' smallest group size: most groups
// Slots of the walk's stack spill pool (a group takes one when its ring first overflows; about the
// work groups a large GPU runs at once: more only wait) and the nodes each holds
// (TreeSettings::kMostStackNodes): 96 MiB, under the largest shader storage block llvmpipe allows
// (128 MiB).
constexpr std::size_t kSpillSlots = 2048;
constexpr std::size_t kSpillSlotNodes = TreeSettings::kMostStackNodes;
// The pool's slots for `bodies` bodies: at most one a group.
std::size_t spillSlotsFor(std::size_t bodies);

// What the tree's buffers take for `bodies` bodies, in bytes: in all, and the largest single buffer
// (one shader storage block must hold it).
struct BufferSizes {
  std::size_t total = 0, largest = 0;
};
BufferSizes bufferSizesFor(std::size_t bodies);

class TreeBuffers {
 public:
  // Makes sure every buffer holds `bodies` bodies (reallocating the ones that are too small).
  void reserve(std::size_t bodies);
  // Binds every buffer to its binding; the sort's keys and values A as input, B as output.
  void bindAll() const;
  // Binds the sort's ping-pong buffers: pass p reads A and writes B when p is even.
  void bindSortPass(int pass) const;
  GLuint buffer(Binding binding) const { return buffers_[binding].id(); }
  std::size_t spillSlots() const { return spillSlotsFor(capacity_); }
  GLuint keysA() const { return buffers_[kKeysIn].id(); }
  GLuint keysB() const { return buffers_[kKeysOut].id(); }

 private:
  std::array<gl::Buffer, kBindingCount> buffers_;
  std::size_t capacity_ = 0;  // bodies
};

}  // namespace nbody::tree
