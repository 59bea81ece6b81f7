#pragma once
// The tree's compute kernels: each a GLSL file with its shared files, its work-group size and the
// layout's defines (tree_layout.h), built on first use per variant (its own defines) and kept with
// its uniforms' locations; and the dispatch of any number of work groups.

#include <cstddef>
#include <functional>
#include <map>
#include <utility>

#include "engines/tree/tree_layout.h"
#include "gl/defines.h"
#include "gl/limits.h"
#include "gl/shader_program.h"

namespace nbody::tree {

enum class Kernel {
  bounds,
  keys,
  histogram,
  scan,
  scatter,
  split,
  topology,
  moments,
  walk,
  density,
  let,
  chunks,
  pack,
  lists,
  fetch,
  hash
};

// Work-group sizes of the kernels with one fixed (the sort's is kSortThreads; the walk's comes
// from its settings, as its WORKGROUP_SIZE define).
constexpr std::size_t kBoundsThreads = 256;
constexpr std::size_t kElementThreads =
    256;  // an invocation a body (topology, moments, density, pack) or a candidate (split)
constexpr std::size_t kLetThreads = 64;  // a work group a chunk, each invocation a node a round
constexpr std::size_t kListItems = 16;   // marks an invocation of tree_lists.comp takes

// Texture and image units the kernels read the positions from and write accelerations to.
constexpr int kPositionUnit = 0, kAccelerationImageUnit = 0;

std::size_t ceilDiv(std::size_t a, std::size_t b);

// Called with the name of each part of a phase done (a phase clock's lap; tree_decomposed.h).
using Lap = std::function<void(const char*)>;
inline void noLap(const char*) {}

// tree_slots.glsl's SLOT_MAP define for `slots` (0 for one GPU's, which maps nothing), and its
// uniforms in `program` for `slots` of a tree of `bodyCount` bodies.
inline gl::Defines slotDefines(const SlotMap& slots) { return {{"SLOT_MAP", slots.mapped}}; }
void setSlotUniforms(const gl::UniformProgram& program, const SlotMap& slots,
                     std::size_t bodyCount);

class Kernels {
 public:
  explicit Kernels(const gl::Limits& limits) : limits_(limits) {}

  // Where the arrays are that the kernels built from now on read and write (buffers until said).
  void setStorage(const ArrayStorage& storage) { storage_ = storage; }
  // Orders the tree kernels that follow after the stores of those before to the arrays and buffers.
  void barrier() const { gl::memoryBarrier(storage_.barrierBits()); }

  // `kernel`'s variant with `defines` (and the arrays' storage), built the first time it is asked
  // for.
  gl::UniformProgram& program(Kernel kernel, const gl::Defines& defines = {});
  // The same, made the current program.
  gl::UniformProgram& use(Kernel kernel, const gl::Defines& defines = {});
  // Dispatches `groups` work groups of the current program, spread over two dimensions where
  // one holds too few (linearGroupId() in group_rows.glsl numbers them).
  void dispatch(std::size_t groups) const;
  // Whether `groups` work groups fit one dispatch.
  bool dispatches(std::size_t groups) const;
  const gl::Limits& limits() const { return limits_; }

 private:
  gl::Limits limits_;  // the context's, as at construction
  ArrayStorage storage_;
  std::map<std::pair<Kernel, gl::Defines>, gl::UniformProgram> programs_;
};

}  // namespace nbody::tree
