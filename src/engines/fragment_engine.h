#pragma once
// The paper's method: bodies in RGBA32F textures (position + mass, velocity), ping-ponged between
// two sets, advanced by fragment shaders writing several render targets at once. One fullscreen
// draw per Runge-Kutta stage; a fragment is a body.

#include <map>
#include <utility>
#include <vector>

#include <glm/vec2.hpp>

#include "engines/engine.h"
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
  void step(const Method& method, const StepParams& params, int steps = 1) override;
  void finish() override;

  std::optional<GpuStateView> gpuState() const override;

  // Width and height of the texture that holds `bodyCount` bodies (padding < width).
  static glm::ivec2 textureSizeFor(std::size_t bodyCount, int maxTextureSize);

 private:
  struct StateTextures {
    gl::Texture positionMass, velocity;
  };
  void allocate(glm::ivec2 size);
  void runStage(const Method& method, const StepParams& params, int stage);
  GLuint programFor(int stage, bool writeAcceleration);
  gl::Framebuffer makeTargets(std::vector<GLuint> textures) const;
  std::vector<float> readTexture(const gl::Texture& texture) const;

  std::size_t bodyCount_ = 0;
  glm::ivec2 size_{0, 0};
  int parity_ = 0;  // base_[parity_] holds the current state
  StateTextures base_[2];
  gl::Texture stagePosition_[2];               // alternate: a stage reads one, writes the other
  std::vector<gl::Texture> stageVelocity_;     // index j: velocity of stage j (0 unused: base)
  std::vector<gl::Texture> stageAcceleration_; // index j: acceleration of stage j
  std::vector<gl::Framebuffer> stageTargets_;  // index j: what stage j writes when not last
  gl::Framebuffer stepTargets_[2];             // index p: the last stage writes base_[p]
  gl::VertexArray emptyVertexArray_;
  std::map<std::pair<int, bool>, gl::Program> programs_;
  int maxTextureSize_ = 0;
};

}  // namespace nbody
