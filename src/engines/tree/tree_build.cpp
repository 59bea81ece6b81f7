#include "engines/tree/tree_build.h"
#include "gl/desktop_calls.h"

#include <algorithm>
#include <limits>

namespace nbody::tree {

void buildTopology(Kernels& kernels, std::size_t bodyCount) {
  buildTopology(kernels, bodyCount, {0, bodyCount, {}});
}

void buildTopology(Kernels& kernels, std::size_t bodyCount, const TopologySegment& segment) {
  gl::UniformProgram& program = kernels.use(Kernel::topology);
  program.setUint("uBodyCount", bodyCount);
  program.setUint("uFirst", segment.first);
  program.setUint("uCount", segment.count);
  program.setUints("uHaloKeys", segment.haloKeys);
  kernels.dispatch(ceilDiv(segment.count, kElementThreads));
  kernels.barrier();
}

void computeMoments(Kernels& kernels, const TreeBuffers& buffers, std::size_t bodyCount,
                    double theta, const SlotMap& slots, const MomentStarts& starts) {
  if (bodyCount < 2) return;
  std::size_t climbs = slots.mapped ? slots.count : bodyCount;
  if (starts.count > 0) climbs = starts.count;
  const GLuint zero = 0;
  // A node's visits at its slot: a walker's arrays hold its slots alone (TreeBuffers::capacity).
  const std::size_t visits = std::min(bodyCount - 1, buffers.capacity());
  glClearNamedBufferSubData(buffers.buffer(kVisits), GL_R32UI, 0, GLsizeiptr(visits * 4),
                            GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
  gl::UniformProgram& program = kernels.use(Kernel::moments, slotDefines(slots));
  program.setUint("uBodyCount", bodyCount);
  program.setUint("uStartCount", starts.count);
  if (starts.count > 0) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kSplitBinding, starts.buffer);
  setSlotUniforms(program, slots, bodyCount);
  program.setFloat("uInverseTheta",
                   theta > 0 ? 1.0 / theta : double(std::numeric_limits<float>::infinity()));
  kernels.dispatch(ceilDiv(climbs, kElementThreads));
  kernels.barrier();
}

void computeDensities(Kernels& kernels, std::size_t bodyCount, std::size_t neighbours,
                      int textureWidth) {
  gl::UniformProgram& program = kernels.use(Kernel::density);
  program.setUint("uBodyCount", bodyCount);
  program.setUint("uNeighbours", neighbours);
  program.setInt("uTextureWidth", textureWidth);
  kernels.dispatch(ceilDiv(bodyCount, kElementThreads));
}

}  // namespace nbody::tree
