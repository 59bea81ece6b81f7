#pragma once
// Diagnostics reduced on the GPU where an engine keeps its state, without reading the bodies back:
// one compute pass evaluates every body's terms (its O(N) share of the potential included) and
// sums them per workgroup; further passes sum the partial sums until one remains, which is the
// only thing read back (96 bytes).

#include <cstddef>

#include "diagnostics/diagnostics.h"
#include "engines/engine.h"
#include "gl/objects.h"
#include "gl/shader_program.h"

namespace nbody {

// How the partial sums are reduced: invocations per workgroup (a power of two) and how many
// partial sums each invocation adds while loading them. Tests use small values to force several
// passes at small N.
struct ReductionShape {
  int groupSize = 256;
  int elementsPerInvocation = 8;
};

class GpuDiagnostics {
 public:
  // Needs a current OpenGL 4.5 context (compute shaders, double precision in GLSL).
  explicit GpuDiagnostics(ReductionShape shape = {});

  // Uses params.softening and params.gravity. Changes the current program, the shader storage
  // buffer bindings 0 and 1 and texture units 0 and 1. Without `pairPotential` the O(N^2) pass
  // is skipped and the potential left zero (for a caller that estimates it otherwise).
  Diagnostics measure(const GpuStateView& state, const StepParams& params,
                      bool pairPotential = true);

  // Dispatches the last measure() needed: the body pass and the passes over partial sums.
  int lastPassCount() const { return lastPassCount_; }

 private:
  std::size_t groupsFor(std::size_t count, std::size_t& elementsPerInvocation) const;
  void reserve(std::size_t sums);

  ReductionShape shape_;
  gl::UniformProgram bodyTerms_, sumPartials_;
  gl::Buffer partials_[2];  // ping-pong: a pass reads one and writes the other
  std::size_t capacity_ = 0;
  std::size_t maxGroups_ = 0;
  int lastPassCount_ = 0;
};

}  // namespace nbody
