#pragma once
// Compiled stage kernels of the GPU engines: one program per variant, built on first use and
// kept, with the locations of its uniforms (gl::UniformProgram). A variant is its sources (a static
// description per kind of kernel) and its typed defines; the pair is the cache key.

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "engines/stage_units.h"
#include "gl/defines.h"
#include "gl/shader_program.h"
#include "physics/method.h"
#include "physics/state.h"

namespace nbody {

// Where each stage kernel's program goes once built, with what it was made of (`key`: its files
// and defines) and the driver's binary of it (NVIDIA's holds its assembly): NBODY_DUMP_PROGRAMS's
// files (app/run/engine_session.h). None by default.
using ProgramDump = std::function<void(const std::string& key, const std::vector<char>& binary)>;
void setProgramDump(ProgramDump dump);

// The GLSL files of one kind of kernel, shared code first. Engines keep one of these per kind
// (static storage): the cache knows a kind by its address.
struct KernelSources {
  std::vector<gl::ShaderStageSource> stages;
};

struct StageKernel {
  gl::UniformProgram program;

  // Makes the program current and sets the uniforms of `stage` of a `method` step.
  void use(const Method& method, const StepParams& params, int stage, std::size_t bodies,
           std::size_t paddedBodies, int sliceLength = 0) const;
  // After use(): the first body of the range a compute kernel's invocations start from (0 unless
  // a distributed run's rank computes a share of the bodies).
  void startAt(std::size_t body) const;
  // The bodies [first, last) alone, for the passes of one invocation a body (update.comp,
  // reduce.comp), whose work groups in rows may run past the range's end.
  void cover(std::size_t first, std::size_t last) const;
};

class StageKernelCache {
 public:
  // The kernel made of `sources` with `defines`, whose texture units follow stage_units.h for
  // `inputs` (StageInputs{} for a kernel that reads only the stage positions).
  const StageKernel& get(const KernelSources& sources, const gl::Defines& defines,
                         StageInputs inputs);

 private:
  using Key = std::tuple<const KernelSources*, gl::Defines, int, int>;
  std::map<Key, StageKernel> kernels_;
};

// POTENTIAL_COMPONENTS (shaders/external_potential.glsl): the external potential's components the
// force kernels add, 0 without one.
int potentialComponents(const StepParams& params);
// Sets shaders/external_potential.glsl's uniforms of `program` for the time of `params` (the
// centres where they are then); nothing without a potential.
void setPotentialUniforms(const gl::UniformProgram& program, const StepParams& params);

// CONTACTS (shaders/gravity.glsl): 1 where the pass screens for contacts (StepParams'
// contactScreen), and its uniforms; nothing without.
int contactScreening(const StepParams& params);
void setContactUniforms(const gl::UniformProgram& program, const StepParams& params);

// SOFTENED: epsilon is large enough that r^2 > 0 and 1/r^3 stays finite for every pair, so the
// force law's j == i guard can go.
bool softened(const StepParams& params);

}  // namespace nbody
