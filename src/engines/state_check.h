#pragma once
// Finds non-finite values (NaN, infinity) in an engine's state: on the GPU for GPU engines (a
// cheap pass and one integer read back), on the CPU otherwise.

#include <memory>
#include <optional>

#include "engines/engine.h"
#include "gl/objects.h"
#include "gl/shader_program.h"
#include "gl/storage_words.h"

namespace nbody {

class NonFiniteCheck {
 public:
  // The index of the first body whose position, mass or velocity is not finite. Where the engine's
  // ranks hold parts of the state and gathering is deferred, from the parts: every rank calls it
  // alike.
  std::optional<std::size_t> firstNonFiniteBody(Engine& engine);

 private:
  std::optional<std::size_t> onGpu(const GpuStateView& view);
  std::optional<std::size_t> inParts(HeldBodies& held, std::size_t bodyCount);
  gl::UniformProgram program_;
  gl::StorageWords result_;
};

std::optional<std::size_t> firstNonFiniteBody(const State& state);

}  // namespace nbody
