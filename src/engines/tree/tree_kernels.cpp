#include "engines/tree/tree_kernels.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "engines/tree/tree_layout.h"
#include "gl/desktop_calls.h"
#include "gl/state_access.h"

namespace nbody::tree {
namespace {

struct KernelFile {
  const char* file;
  std::size_t workgroupSize;  // 0: the variant's defines give it (the walk)
  bool histogram;             // counts radix digits (workgroup.glsl's histogram)
};

KernelFile fileOf(Kernel kernel) {
  switch (kernel) {
    case Kernel::bounds:
      return {"tree_bounds.comp", kBoundsThreads, false};
    case Kernel::keys:
      return {"tree_keys.comp", kSortThreads, true};
    case Kernel::histogram:
      return {"radix_histogram.comp", kSortThreads, true};
    case Kernel::scan:
      return {"radix_scan.comp", kSortThreads, false};
    case Kernel::scatter:
      return {"radix_scatter.comp", kSortThreads, false};
    case Kernel::split:
      return {"tree_split.comp", kElementThreads, false};
    case Kernel::topology:
      return {"tree_topology.comp", kElementThreads, false};
    case Kernel::moments:
      return {"tree_moments.comp", kElementThreads, false};
    case Kernel::walk:
      return {"tree_walk.comp", 0, false};
    case Kernel::density:
      return {"tree_density.comp", kElementThreads, false};
    case Kernel::let:
      return {"tree_let.comp", kLetThreads, false};
    case Kernel::chunks:
      return {"tree_chunks.comp", kBoundsThreads, false};
    case Kernel::pack:
      return {"tree_pack.comp", kElementThreads, false};
    case Kernel::lists:
      return {"tree_lists.comp", kElementThreads, false};
    case Kernel::fetch:
      return {"tree_fetch.comp", kElementThreads, false};
    case Kernel::hash:
      return {"tree_hash.comp", kElementThreads, false};
  }
  throw std::logic_error("unknown tree kernel");
}

// The files a kernel is made of: the shared ones first (workgroup.glsl's #extension lines before
// any code).
std::vector<std::string> sourcesOf(Kernel kernel) {
  const std::string file = fileOf(kernel).file;
  if (kernel == Kernel::walk)
    return {"workgroup.glsl",   "group_rows.glsl",         "body_layout.glsl",
            "gravity.glsl",     "external_potential.glsl", "tree_common.glsl",
            "tree_arrays.glsl", "tree_slots.glsl",         file};
  if (kernel == Kernel::moments || kernel == Kernel::let)
    return {"workgroup.glsl",
            "group_rows.glsl",
            "body_layout.glsl",
            "tree_common.glsl",
            "tree_arrays.glsl",
            "tree_slots.glsl",
            file};
  return {"workgroup.glsl",   "group_rows.glsl",  "body_layout.glsl",
          "tree_common.glsl", "tree_arrays.glsl", file};
}

// The defines every variant of `kernel` has: the layout's, its work-group size, its histogram.
gl::Defines fixedDefinesOf(Kernel kernel) {
  const KernelFile file = fileOf(kernel);
  gl::Defines defines = layoutDefines();
  if (file.workgroupSize > 0) defines.set("WORKGROUP_SIZE", int(file.workgroupSize));
  if (file.histogram) defines.set("HISTOGRAM_BINS", int(kRadix));
  return defines;
}

}  // namespace

std::size_t ceilDiv(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

void setSlotUniforms(const gl::UniformProgram& program, const SlotMap& slots,
                     std::size_t bodyCount) {
  const bool whole = !slots.mapped;
  program.setUint("uSlotFirst", whole ? 0 : slots.first);
  program.setUint("uSlotCount", whole ? bodyCount : slots.count);
  program.setUint("uBodiesBelow", whole ? 0 : slots.bodiesBelow);
  program.setUint("uHashMask", slots.hashEntries > 0 ? slots.hashEntries - 1 : 0);  // SLOT_MAP 1
}

gl::UniformProgram& Kernels::program(Kernel kernel, const gl::Defines& defines) {
  gl::Defines variant = storage_.defines();
  variant.add(defines);
  auto key = std::make_pair(kernel, variant);
  auto found = programs_.find(key);
  if (found != programs_.end()) return found->second;
  gl::UniformProgram built(gl::buildProgram({{GL_COMPUTE_SHADER, sourcesOf(kernel)}},
                                            fixedDefinesOf(kernel).add(variant)));
  built.setInt("uPositionMass", kPositionUnit);
  built.setInt("uAcceleration", kAccelerationImageUnit);
  return programs_.emplace(std::move(key), std::move(built)).first->second;
}

gl::UniformProgram& Kernels::use(Kernel kernel, const gl::Defines& defines) {
  gl::UniformProgram& found = program(kernel, defines);
  glUseProgram(found.id());
  return found;
}

bool Kernels::dispatches(std::size_t groups) const { return gl::rowsHold(groups, limits_); }

void Kernels::dispatch(std::size_t groups) const { gl::dispatchRows(groups, limits_); }

}  // namespace nbody::tree
