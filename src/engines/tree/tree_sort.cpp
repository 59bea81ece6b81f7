#include "engines/tree/tree_sort.h"

#include <algorithm>

#include "engines/tree/tree_layout.h"
#include "gl/desktop_calls.h"

namespace nbody::tree {
namespace {

constexpr std::size_t kBoundsGroups = 1024;  // at most, each invocation taking several bodies
// Up to this many sort blocks (N = 131072) one work group scans the block counts, an invocation a
// digit (radix_scan.comp says why).
constexpr std::size_t kOneGroupScanBlocks = 64;

}  // namespace

void findBounds(Kernels& kernels, const TreeBuffers& buffers, std::size_t bodyCount) {
  const GLuint bounds[6] = {~0u, ~0u, ~0u, 0u, 0u, 0u};  // ordered: largest, smallest
  glNamedBufferSubData(buffers.buffer(kBounds), 0, sizeof bounds, bounds);
  if (bodyCount == 0) return;  // the empty box: neutral in a fold across ranks
  gl::UniformProgram& program = kernels.use(Kernel::bounds);
  const std::size_t perInvocation = ceilDiv(bodyCount, kBoundsGroups * kBoundsThreads);
  program.setUint("uBodyCount", bodyCount);
  program.setUint("uBodiesPerInvocation", perInvocation);
  kernels.dispatch(ceilDiv(bodyCount, kBoundsThreads * perInvocation));
  kernels.barrier();
}

namespace {

void makeKeys(Kernels& kernels, const TreeBuffers& buffers, std::size_t bodyCount) {
  gl::UniformProgram& program = kernels.use(Kernel::keys, {{"CURVE_HILBERT", 1}});
  const std::size_t blocks = ceilDiv(bodyCount, kSortBlock);
  program.setUint("uBodyCount", bodyCount);
  program.setUint("uBlockCount", blocks);
  buffers.bindSortPass(-1);  // writes keys and values A
  kernels.dispatch(blocks);
  kernels.barrier();
}

// One pass over the digit at bit 8 `pass`: histogram (but in the first pass, whose digits the
// keys pass counted), scan, scatter.
void sortPass(Kernels& kernels, int pass, std::size_t blocks, bool oneGroupScan) {
  if (pass > 0) {
    kernels.use(Kernel::histogram).setUint("uShift", std::size_t(8 * pass));
    kernels.dispatch(blocks);
    kernels.barrier();
  }
  kernels.use(Kernel::scan, {{"SCAN_ONE_GROUP", oneGroupScan ? 1 : 0}});
  glDispatchCompute(oneGroupScan ? 1 : GLuint(kRadix), 1, 1);
  kernels.barrier();
  kernels.use(Kernel::scatter).setUint("uShift", std::size_t(8 * pass));
  kernels.dispatch(blocks);
  kernels.barrier();
}

void sortKeys(Kernels& kernels, const TreeBuffers& buffers, std::size_t bodyCount) {
  const std::size_t blocks = ceilDiv(bodyCount, kSortBlock);
  const bool oneGroupScan = blocks <= kOneGroupScanBlocks;
  for (gl::UniformProgram* program :
       {&kernels.program(Kernel::histogram),
        &kernels.program(Kernel::scan, {{"SCAN_ONE_GROUP", oneGroupScan ? 1 : 0}}),
        &kernels.program(Kernel::scatter)}) {
    program->setUint("uCount", bodyCount);
    program->setUint("uBlockCount", blocks);
  }
  for (int pass = 0; pass < kSortPasses; ++pass) {
    buffers.bindSortPass(pass);
    sortPass(kernels, pass, blocks, oneGroupScan);
  }
  buffers.bindSortPass(0);  // the sorted keys and values are in A again (an even number of passes)
}

}  // namespace

void sortByKeys(Kernels& kernels, const TreeBuffers& buffers, std::size_t bodyCount) {
  if (bodyCount == 0) return;
  makeKeys(kernels, buffers, bodyCount);
  sortKeys(kernels, buffers, bodyCount);
}

void sortBodies(Kernels& kernels, const TreeBuffers& buffers, std::size_t bodyCount) {
  findBounds(kernels, buffers, bodyCount);
  sortByKeys(kernels, buffers, bodyCount);
}

std::array<std::uint32_t, 6> readBounds(const TreeBuffers& buffers) {
  const std::vector<std::uint32_t> words = buffers.readWords(kBounds, 6);
  std::array<std::uint32_t, 6> bounds{};
  std::copy(words.begin(), words.end(), bounds.begin());
  return bounds;
}

void writeBounds(const TreeBuffers& buffers, const std::array<std::uint32_t, 6>& bounds) {
  glNamedBufferSubData(buffers.buffer(kBounds), 0, sizeof bounds, bounds.data());
}

std::vector<std::uint32_t> readSortedBodies(const TreeBuffers& buffers, std::size_t bodyCount) {
  return buffers.readWords(kValuesIn, bodyCount);
}

std::vector<std::uint64_t> readSortedKeys(const TreeBuffers& buffers, std::size_t bodyCount) {
  const std::vector<std::uint32_t> words = buffers.readWords(kKeysIn, 2 * bodyCount);
  std::vector<std::uint64_t> keys;
  for (std::size_t k = 0; k < bodyCount; ++k)
    keys.push_back(std::uint64_t(words[2 * k]) << 32 | words[2 * k + 1]);
  return keys;
}

}  // namespace nbody::tree
