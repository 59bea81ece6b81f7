#pragma once
// The paper's method: bodies in RGBA32F textures (position + mass, velocity), ping-ponged between
// two sets, advanced by fragment shaders writing several render targets at once.
// With one body per fragment each Runge-Kutta stage is one fullscreen draw (force and update
// fused). With B > 1 bodies per fragment (or S > 1 slices) a stage is a force pass on a
// (W/B) x (S H) target that writes B accelerations (B render targets) for each of S slices of the
// j-loop, then a cheap update pass, one body per fragment, that adds the slices up. A stage
// that needs no force evaluation (force-free, or an FSAL method's first) is an update pass alone.
// Options: unroll (the texel loop in blocks, the paper's table 3), bodies-per-fragment, slices.

#include <map>
#include <vector>

#include "engines/engine.h"
#include "engines/reused_force.h"
#include "engines/stage_kernel.h"
#include "engines/stage_textures.h"
#include "gl/objects.h"

namespace nbody {

class FragmentEngine final : public Engine {
 public:
  FragmentEngine();  // needs a current OpenGL 4.5 context; throws if it lacks what the engine uses

  std::string name() const override { return "fragment"; }
  std::string device() const override;
  bool runsOnGl() const override { return true; }
  void upload(const State& state) override;
  State download() override;
  std::size_t bodyCount() const override { return bodyCount_; }
  void checkCapacity(std::size_t bodies) const override { checkGpuCapacity(bodies, slices()); }
  void step(const Method& method, const StepParams& params, int steps = 1) override;
  void finish() override;
  std::vector<EngineOption> options() const override { return {unroll_, bodiesPerFragment_, slices_}; }
  void setOption(const std::string& name, const std::string& value) override;
  std::optional<GpuStateView> gpuState() const override;

 private:
  void runStage(const Method& method, const StepParams& params, int stage, bool reuseLastForce);
  void runFusedStage(const Method& method, const StepParams& params, int stage);
  void runForce(const Method& method, const StepParams& params, int stage);
  // Advances from stored accelerations; `forceStored`: this stage's too (else it is force-free).
  void runUpdate(const Method& method, const StepParams& params, int stage, bool forceStored);
  std::vector<std::string> forceDefines(const StepParams& params) const;
  // A framebuffer drawing into these (texture, layer) attachments; layer -1: not layered.
  GLuint targets(const std::vector<std::pair<GLuint, int>>& attachments);
  int bodiesPerFragment() const { return std::stoi(bodiesPerFragment_.value); }
  int slices() const { return std::stoi(slices_.value); }
  bool fused() const { return bodiesPerFragment() == 1 && slices() == 1; }

  std::size_t bodyCount_ = 0;
  StageTextures textures_;
  StageKernelCache kernels_;
  std::map<std::vector<std::pair<GLuint, int>>, gl::Framebuffer> framebuffers_;
  gl::VertexArray emptyVertexArray_;
  EngineOption unroll_, bodiesPerFragment_, slices_;
  int maxTextureSize_ = 0;
  ReusedForce reusedForce_;
};

}  // namespace nbody
