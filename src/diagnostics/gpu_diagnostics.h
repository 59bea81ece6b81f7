#pragma once
// Diagnostics reduced on the GPU where an engine keeps its state, without reading the bodies back,
// the sums over bodies exact (shaders/diagnostics.comp): the same bits for any order of the bodies
// and any split of them, given each body's terms. A compute pass sums each body's potential over
// its pairs (O(N^2), in the order of the texels); another finds each quantity's largest term (its
// exponent); another cuts every body's terms into integer digits and sums them per workgroup;
// further passes sum the partial sums until one remains, which is read back (480 bytes) and
// weighted back on the host.

#include <array>
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
  int groupSize = 64;  // the digits' shared memory: 480 bytes an invocation
  int elementsPerInvocation = 8;
};

class GpuDiagnostics {
 public:
  // Needs a current OpenGL 4.5 context (compute shaders, double precision in GLSL).
  explicit GpuDiagnostics(ReductionShape shape = {});

  // Uses params.softening and params.gravity. Changes the current program, the shader storage
  // buffer bindings 0 to 2 and texture units 0 and 1. Without `pairPotential` the O(N^2) pass
  // is skipped and the potential left zero (for a caller that estimates it otherwise).
  Diagnostics measure(const GpuStateView& state, const StepParams& params,
                      bool pairPotential = true);

  // Dispatches the last measure() needed for its sums: the digits' pass over the bodies and the
  // passes over partial sums (the exponents' pass before them not counted).
  int lastPassCount() const { return lastPassCount_; }

 private:
  std::size_t groupsFor(std::size_t count, std::size_t& elementsPerInvocation) const;
  void reserve(std::size_t sums);
  void sumPotentials(const GpuStateView& state);
  std::array<GLuint, 12> largestExponents(const GpuStateView& state, bool pairPotential);
  void setStateUniforms(const gl::UniformProgram& program, const GpuStateView& state,
                        bool pairPotential) const;
  int sumPartials(std::size_t count);

  ReductionShape shape_;
  gl::UniformProgram potentials_, scales_, bodyDigits_, sumPartials_;
  gl::Buffer scalesBuffer_;      // the exponents' pass's 12 integer maxima
  gl::Buffer potentialsBuffer_;  // phi_i, a double a body
  std::size_t potentialCapacity_ = 0;
  double softening2_ = 0.0;  // eps^2, a float in the passes
  gl::Buffer partials_[2];   // ping-pong: a pass reads one and writes the other
  std::size_t capacity_ = 0;
  std::size_t maxGroups_ = 0;
  int lastPassCount_ = 0;
};

}  // namespace nbody
