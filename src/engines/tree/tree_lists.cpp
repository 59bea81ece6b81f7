#include "engines/tree/tree_lists.h"

#include "engines/tree/tree_layout.h"
#include "gl/desktop_calls.h"

namespace nbody::tree {
namespace {

std::size_t blocksOf(std::size_t count) { return ceilDiv(count, kElementThreads * kListItems); }

gl::UniformProgram& listsProgram(Kernels& kernels, int pass) {
  return kernels.use(Kernel::lists, {{"PASS", pass}, {"LIST_ITEMS", int(kListItems)}});
}

}  // namespace

void MarkLists::setMarks(Kernels& kernels, GLuint marks, std::size_t firstWord, GLuint slots,
                         std::size_t listFirst, std::size_t count, std::uint32_t value,
                         SlotWindow window) {
  if (count == 0) return;
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetChunksBinding, slots);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetMarksBinding, marks);
  gl::UniformProgram& program = listsProgram(kernels, 0);
  program.setUint("uFirst", firstWord);
  program.setUint("uListFirst", listFirst);
  program.setUint("uCount", count);
  program.setUint("uValue", value);
  program.setUint("uWindowFirst", window.first);
  program.setUint("uWindowSlots", window.slots);
  kernels.dispatch(ceilDiv(count, kElementThreads));
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
}

void MarkLists::setMarks(Kernels& kernels, GLuint marks, std::size_t firstWord,
                         std::span<const std::uint32_t> slots, std::uint32_t value) {
  if (slots.empty()) return;
  const GLuint buffer = ensureBuffer(slots_, slots.size_bytes());
  glNamedBufferSubData(buffer, 0, GLsizeiptr(slots.size_bytes()), slots.data());
  setMarks(kernels, marks, firstWord, buffer, 0, slots.size(), value);
}

// Runs tree_lists.comp's counting (1) or listing (2) pass over each region, its counts after the
// region's before it.
void MarkLists::run(Kernels& kernels, int pass, std::span<const std::size_t> regionFirsts,
                    std::size_t count, std::size_t receivers, std::size_t slotBase) {
  const std::size_t blocks = blocksOf(count);
  gl::UniformProgram& program = listsProgram(kernels, pass);
  if (pass == 2) program.setUint("uSlotBase", slotBase);
  program.setUint("uCount", count);
  program.setUint("uRanks", receivers);
  program.setUint("uBlocks", blocks);
  for (std::size_t region = 0; region < regionFirsts.size(); ++region) {
    program.setUint("uFirst", regionFirsts[region]);
    program.setUint("uCountsFirst", region * receivers * blocks);
    kernels.dispatch(blocks);
  }
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
}

std::vector<std::vector<std::size_t>> MarkLists::list(Kernels& kernels, GLuint marks,
                                                      std::span<const std::size_t> regionFirsts,
                                                      std::size_t count, std::size_t receivers,
                                                      std::size_t slotBase) {
  const std::size_t blocks = blocksOf(count), regions = regionFirsts.size();
  std::vector<std::vector<std::size_t>> totals(regions, std::vector<std::size_t>(receivers, 0));
  std::vector<std::uint32_t> counts(regions * receivers * blocks);
  if (counts.empty()) return totals;
  ensureBuffer(counts_, counts.size() * 4);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetMarksBinding, marks);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetListsBinding, counts_.buffer.id());
  run(kernels, 1, regionFirsts, count, receivers, slotBase);
  glGetNamedBufferSubData(counts_.buffer.id(), 0, GLsizeiptr(counts.size() * 4), counts.data());
  std::size_t place = 0;  // exclusive sums: region after region, receiver after receiver
  for (std::size_t k = 0; k < counts.size(); ++k) {
    const std::size_t blockCount = counts[k];
    totals[k / (receivers * blocks)][k / blocks % receivers] += blockCount;
    counts[k] = std::uint32_t(place);
    place += blockCount;
  }
  glNamedBufferSubData(counts_.buffer.id(), 0, GLsizeiptr(counts.size() * 4), counts.data());
  ensureBuffer(lists_, place * 4);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetChunksBinding, lists_.buffer.id());
  run(kernels, 2, regionFirsts, count, receivers, slotBase);
  return totals;
}

}  // namespace nbody::tree
