#pragma once
// Compute shaders on every SM (fragment shaders reach only a few on big GPUs). A stage is
// force.comp (shared-memory tiles; for small N the j-loop is split into slices over more work
// groups) and, when split, reduce.comp, which adds the slices and advances each body with the
// same rk_combine.glsl as the fragment engine.
// Options: group-size (= tile size), slices, bodies-per-thread; each auto (from N and the GPU)
// or fixed. The slices split the j-loop's sum; the group size and bodies a thread do not, and the
// slices follow the default's whatever they are, so these change no bit.

#include <optional>

#include "engines/gpu_engine.h"
#include "gl/objects.h"

namespace nbody {

class ComputeEngine final : public GpuEngine {
 public:
  ComputeEngine();  // needs a current OpenGL 4.3+ context with compute shaders; throws otherwise

  std::string name() const override { return "compute"; }

  // The options, parsed: a number, or nothing for auto.
  struct LayoutChoice {
    std::optional<int> groupSize, bodiesPerThread, slices;
  };
  // How a stage is laid out on the GPU once "auto" choices are resolved.
  struct Layout {
    int groupSize = 0, bodiesPerThread = 0, slices = 0;
    int sliceLength = 0;  // bodies j per slice: whole tiles
  };
  // Resolves the choices for N bodies (with padding) on a GPU of `multiprocessors` SMs, for
  // passes that screen for contacts or not (their auto group size differs; nothing else does).
  // Where the driver stops an invocation's loops after `mostLoopIterations` (llvmpipe; 0: no
  // limit), auto slices loop no further than loopIterationsAllowed (engines/gpu_capacity.h).
  static Layout resolveLayout(std::size_t paddedBodies, const LayoutChoice& choice,
                              int multiprocessors, bool screening = false,
                              long long mostLoopIterations = 0);
  // The loop iterations of a slice of `sliceLength` bodies: a tile's, and with contacts the tile's
  // chunks of 32, at most L (1 + 1/64 + 1/32).
  static double sliceLoopIterations(int sliceLength);
  // The fewest slices whose loops run as far as the driver allows (1 where it has no limit).
  static int slicesThatLoopAsAllowed(std::size_t paddedBodies, long long mostLoopIterations);

 private:
  void optionsChanged() override;
  bool runFusedStage(const StagePass& pass) override;
  std::size_t shareGranule() const override;
  void evaluateForce(const StagePass& pass) override;
  void runUpdate(const StagePass& pass) override;
  // Throws where a step would dispatch more work groups than this GPU allows (OpenGL promises only
  // 65535 a dimension, and a dispatch over the limit does nothing, silently) or need a partial-sum
  // buffer larger than one shader storage block may be (reads past it are undefined), or slices
  // longer than the driver runs an invocation's loops (llvmpipe stops them, silently).
  void checkLayout(std::size_t bodies, glm::ivec2 size) const override;
  void beginSteps() override;

  Layout layoutFor(std::size_t paddedBodies) const;  // with the current options
  const Layout& layout() const;                      // for the current N and options
  Layout passLayout(const StagePass& pass) const;    // layout(), for a pass that may screen
  const StageKernel& forceKernel(const StagePass& pass, bool fused);
  void dispatchForce(const StageKernel& force, const StagePass& pass, bool fused);

  LayoutChoice choice_;
  int multiprocessors_ = 16;
  long long mostLoopIterations_ = 0;                              // gl::Limits::mostLoopIterations
  mutable std::optional<std::pair<std::size_t, Layout>> layout_;  // for a padded N
  gl::Buffer partialSums_;
  std::size_t partialSumsBytes_ = 0;
};

}  // namespace nbody
