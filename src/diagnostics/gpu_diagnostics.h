#pragma once
// Diagnostics reduced on the GPU where an engine keeps its state, without reading the bodies back:
// every body's terms (its O(N) share of the potential included) are added as 128-bit integers in
// units of 2^-95 of the power of two above each quantity's largest term (shaders/diagnostics.comp),
// so the sums are the same bits in any order of the bodies and any cut of the work; passes over
// partial sums add them until one remains, which is the only thing read back (240 bytes).

#include <cstddef>

#include "diagnostics/diagnostics.h"
#include "engines/engine.h"
#include "gl/objects.h"
#include "gl/shader_program.h"
#include "parallel/ranks.h"

namespace nbody {

// How the partial sums are reduced: invocations per workgroup (a power of two) and how many
// partial sums each invocation adds while loading them; and the texels a dispatch of the pair
// potential adds to each body's sum (llvmpipe stops an invocation's loops after 65535 iterations
// in all). Tests use small values to force several passes at small N.
struct ReductionShape {
  int groupSize = 256;
  int elementsPerInvocation = 8;
  int pairChunkTexels = 16384;
};

class GpuDiagnostics {
 public:
  // Needs a current OpenGL 4.5 context (compute shaders, double precision in GLSL).
  explicit GpuDiagnostics(ReductionShape shape = {});

  // Uses params.softening and params.gravity. Changes the shader storage buffer bindings 0 to 3
  // and texture units 0 and 1. Without `pairPotential` the O(N^2) pass
  // is skipped and the potential left zero (for a caller that estimates it otherwise).
  Diagnostics measure(const GpuStateView& state, const StepParams& params,
                      bool pairPotential = true);
  // The same for the bodies of every rank's `state` together (each rank's own bodies, as a
  // decomposed run's homes hold them), without the pair potential: the exponents folded by integer
  // maximum and the integer sums added across ranks, so the bits of one GPU that holds every body.
  // Every rank calls it alike.
  Diagnostics measureAcross(const GpuStateView& state, const StepParams& params,
                            const Ranks& ranks);

  // Dispatches the last measure() needed: the pair potential's chunks, two body passes (the
  // exponents, then the sums) and the passes over partial sums.
  int lastPassCount() const { return lastPassCount_; }

 private:
  std::size_t groupsFor(std::size_t count, std::size_t& elementsPerInvocation) const;
  void reserve(std::size_t sums, std::size_t potentialTerms);
  // The sums of the quantities, and their largest exponents, across `ranks` where given.
  struct Sums;
  Sums sumsOf(const GpuStateView& state, const StepParams& params, bool pairPotential,
              const Ranks* ranks);
  std::size_t sumBodies(const GpuStateView& state, const StepParams& params, bool pairPotential,
                        const Ranks* ranks);
  void sumPairs(const GpuStateView& state, const StepParams& params);
  void dispatchBodyPass(const gl::UniformProgram& program, std::size_t bodies,
                        std::size_t perInvocation, std::size_t groups, const StepParams& params,
                        bool pairPotential) const;

  ReductionShape shape_;
  gl::UniformProgram pairSums_, exponentPass_, bodySums_, sumPartials_;
  gl::Buffer partials_[2];  // ping-pong: a pass reads one and writes the other
  gl::Buffer exponents_;    // uint[12]: each quantity's largest biased exponent
  gl::Buffer potentials_;   // double[N]: each body's pair sum, for the body passes
  std::size_t capacity_ = 0, potentialCapacity_ = 0;
  std::size_t maxGroups_ = 0;
  int lastPassCount_ = 0;
};

}  // namespace nbody
