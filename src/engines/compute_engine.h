#pragma once
// Compute shaders on every SM (fragment shaders reach only a few on big GPUs). The state lives in
// the same textures as the fragment engine's (StageTextures), so the renderer, readback and an
// engine switch need no conversion. A stage is force.comp (shared-memory tiles; for small N the
// j-loop is split into slices over more work groups) and, when split, reduce.comp, which adds the
// slices and advances each body with the same rk_combine.glsl as the fragment engine.
// Options: group-size (= tile size), slices, bodies-per-thread; each auto (from N and the GPU)
// or fixed.

#include "engines/engine.h"
#include "engines/reused_force.h"
#include "engines/stage_kernel.h"
#include "engines/stage_textures.h"
#include "gl/objects.h"

namespace nbody {

class ComputeEngine final : public Engine {
 public:
  ComputeEngine();  // needs a current OpenGL 4.3+ context with compute shaders; throws otherwise

  std::string name() const override { return "compute"; }
  std::string device() const override;
  bool runsOnGl() const override { return true; }
  void upload(const State& state) override;
  State download() override;
  std::size_t bodyCount() const override { return bodyCount_; }
  void checkCapacity(std::size_t bodies) const override;
  void step(const Method& method, const StepParams& params, int steps = 1) override;
  void finish() override;
  std::vector<EngineOption> options() const override { return {groupSize_, slices_, bodiesPerThread_}; }
  void setOption(const std::string& name, const std::string& value) override;
  std::optional<GpuStateView> gpuState() const override;

  // How a stage is laid out on the GPU once "auto" choices are resolved.
  struct Layout {
    int groupSize = 0, bodiesPerThread = 0, slices = 0;
    int sliceLength = 0;  // bodies j per slice: whole tiles
  };
  // Resolves option values (numbers or "auto") for N bodies on a GPU of `multiprocessors` SMs.
  static Layout resolveLayout(std::size_t paddedBodies, const std::string& groupSize,
                              const std::string& bodiesPerThread, const std::string& slices,
                              int multiprocessors);
  Layout layout() const { return layoutFor(paddedCount()); }  // for the current N and options

 private:
  void runStage(const Method& method, const StepParams& params, int stage, bool reuseLastForce);
  // Advances from stored accelerations; `forceStored`: this stage's too (else it is force-free).
  void runUpdate(const Method& method, const StepParams& params, int stage, bool forceStored);
  static void barrierAfterStage();
  // Throws where a step would dispatch more work groups than this GPU allows (OpenGL promises only
  // 65535 a dimension, and a dispatch over the limit does nothing, silently) or need a partial-sum
  // buffer larger than one shader storage block may be (reads past it are undefined).
  void checkLayoutFits(std::size_t bodies, std::size_t paddedBodies, const Layout& layout) const;
  Layout layoutFor(std::size_t paddedBodies) const;  // with the current options
  std::size_t paddedCount() const { return std::size_t(textures_.size().x) * std::size_t(textures_.size().y); }

  std::size_t bodyCount_ = 0;
  StageTextures textures_;
  StageKernelCache kernels_;
  gl::Buffer partialSums_;
  std::size_t partialSumsBytes_ = 0;
  EngineOption groupSize_, slices_, bodiesPerThread_;
  int maxTextureSize_ = 0, multiprocessors_ = 16;
  GLint maxWorkGroups_[2] = {65535, 65535};  // x and y of GL_MAX_COMPUTE_WORK_GROUP_COUNT
  GLint64 maxStorageBlockBytes_ = 1 << 27;     // GL_MAX_SHADER_STORAGE_BLOCK_SIZE
  ReusedForce reusedForce_;
};

}  // namespace nbody
