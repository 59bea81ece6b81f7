#pragma once
// Lists made from marks on the GPU (shaders/tree_lists.comp): a word of marks a slot, bit r set
// where receiver r wants the slot; the lists hold each receiver's slots ascending, receiver after
// receiver, so nothing but their counts leaves the GPU. The local essential trees list what each
// rank sends (tree_let.h); the decomposed tree lists the IDs a walker holds (tree_migrate.h).

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engines/tree/tree_buffers.h"
#include "engines/tree/tree_kernels.h"

namespace nbody::tree {

// Slots [first, first + slots): a window of them.
struct SlotWindow {
  std::size_t first = 0, slots = 0xffffffffu;  // the default: every slot
};

class MarkLists {
 public:
  // Sets the word of `marks` at `firstWord` + each of `count` slots to `value`: the slots are
  // words [listFirst, listFirst + count) of buffer `slots`, or the host's `slots` (uploaded).
  // Only those of `window`, each at `firstWord` + its place in it.
  void setMarks(Kernels& kernels, GLuint marks, std::size_t firstWord, GLuint slots,
                std::size_t listFirst, std::size_t count, std::uint32_t value,
                SlotWindow window = {});
  void setMarks(Kernels& kernels, GLuint marks, std::size_t firstWord,
                std::span<const std::uint32_t> slots, std::uint32_t value);
  // Lists the marks of regions of `count` words each, at `regionFirsts` (words) of `marks`, for
  // `receivers` receivers (1 to 32): in lists(), region after region, each receiver after
  // receiver, each slot plus `slotBase` (a window's first slot). Returns how many each region has
  // for each receiver.
  std::vector<std::vector<std::size_t>> list(Kernels& kernels, GLuint marks,
                                             std::span<const std::size_t> regionFirsts,
                                             std::size_t count, std::size_t receivers,
                                             std::size_t slotBase = 0);
  GLuint lists() const { return lists_.buffer.id(); }

 private:
  void run(Kernels& kernels, int pass, std::span<const std::size_t> regionFirsts, std::size_t count,
           std::size_t receivers, std::size_t slotBase);

  GrowingBuffer lists_, counts_, slots_;
};

}  // namespace nbody::tree
