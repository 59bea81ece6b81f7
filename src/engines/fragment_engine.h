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

#include "engines/gpu_engine.h"
#include "gl/objects.h"

namespace nbody {

class FragmentEngine final : public GpuEngine {
 public:
  FragmentEngine();  // needs a current OpenGL 4.5 context; throws if it lacks what the engine uses

  std::string name() const override { return "fragment"; }

 private:
  // The options, parsed.
  struct Layout {
    int unrollX = 2, unrollY = 2;
    int bodiesPerFragment = 4, slices = 4;
    bool fused() const { return bodiesPerFragment == 1 && slices == 1; }
  };

  void optionsChanged() override;
  AccelerationLayout accelerationLayout() const override;
  bool runFusedStage(const StagePass& pass) override;
  void evaluateForce(const StagePass& pass) override;
  void runUpdate(const StagePass& pass) override;
  void beginSteps() override;
  // Throws where a force fragment would loop further than the driver runs (llvmpipe stops an
  // invocation's loops after 65535 iterations in all, silently).
  void checkLayout(std::size_t bodies, glm::ivec2 size) const override;
  // The loop iterations of a force fragment for state textures of `size`.
  double forceLoopIterations(glm::ivec2 size) const;
  void texturesReallocated() override { framebuffers_.clear(); }
  // Whole rows: a rank's passes draw its rows of the textures.
  std::size_t shareGranule() const override { return std::size_t(textures().size().x); }
  void drawShare(glm::ivec2 size);

  gl::Defines forceDefines(const StepParams& params) const;
  // Binds a framebuffer drawing into these (texture, layer) attachments (layer -1: not layered),
  // made on first use.
  void drawInto(const std::vector<std::pair<GLuint, int>>& attachments);

  Layout layout_;
  std::map<std::vector<std::pair<GLuint, int>>, gl::Framebuffer> framebuffers_;
  gl::VertexArray emptyVertexArray_;
};

}  // namespace nbody
