#pragma once
// Compiled stage kernels of the GPU engines: one program per variant (its #defines), built on
// first use and kept, with the locations of the uniforms the kernels share.

#include <map>
#include <string>
#include <vector>

#include "gl/shader_program.h"
#include "physics/method.h"
#include "physics/state.h"

namespace nbody {

struct StageKernel {
  gl::Program program;
  GLint positionWeight = -1, velocityWeight = -1, softening2 = -1, gravity = -1, bodyCount = -1, paddedCount = -1,
        sliceLength = -1;

  // Makes the program current and sets the uniforms of `stage` of a `method` step.
  void use(const Method& method, const StepParams& params, int stage, std::size_t bodies,
           std::size_t paddedBodies, int sliceLength = 0) const;
};

class StageKernelCache {
 public:
  // The kernel made of `sources` with `defines`, whose samplers follow setStageSamplerUnits for
  // (stage, accelerationInputs).
  const StageKernel& get(const std::vector<gl::ShaderStageSource>& sources,
                         const std::vector<std::string>& defines, int stage, int accelerationInputs);

 private:
  std::map<std::string, StageKernel> kernels_;
};

// The defines every force kernel needs: SOFTENED when epsilon is large enough that r^2 > 0 and
// 1/r^3 stays finite for every pair, so the j == i guard can go.
std::string softenedDefine(const StepParams& params);

}  // namespace nbody
