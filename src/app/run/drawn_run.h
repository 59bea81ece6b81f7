#pragma once
// A run drawn as it goes, the way `record` films it and `shot --trails` paints it: the initial
// state is uploaded, the camera and the colours are set from it, then steps and pictures take
// turns in an offscreen framebuffer of the picture's size. With trails on, the light of every step
// goes into the trails, not only that of the steps a picture is drawn at.

#include <functional>

#include "app/run/shot_options.h"
#include "render/offscreen.h"
#include "render/point_sprite_renderer.h"
#include "render/state_textures.h"

namespace nbody {

class DrawnRun {
 public:
  // `engine` lives in the current OpenGL context and outlives this. Uses the options' engine-free
  // parts: problem, method, step, picture size and look (the camera placed to fit the first state).
  DrawnRun(Engine& engine, const ShotOptions& options);
  const Method& method() const { return method_; }
  const StepParams& step() const { return step_; }

  void advance(long long steps);
  // Draws the current state into the offscreen picture, then calls `afterDrawing` (if any) while
  // the picture is still bound for reading (to capture it). Only rank 0 of a distributed run
  // draws (the others' pictures would go nowhere): the others only step.
  void draw(const std::function<void()>& afterDrawing = {});
  Image read() { return target_.read(); }

  Camera& camera() { return camera_; }  // the caller may turn it between pictures
  const RenderSettings& settings() const { return settings_; }
  double time() const { return time_; }
  const State& firstState() const { return first_; }
  // How far the centre of mass moved since the first state: at the total momentum over the total
  // mass (zero for every scene), so it is known without reading the state back.
  glm::vec3 centreOfMassMoved() const;

 private:
  DrawnRun(Engine& engine, const ShotOptions& options, const ShotStart& start);

  Engine& engine_;
  const Method& method_;
  StepParams step_;
  State first_;
  double firstTime_ = 0.0, time_ = 0.0;
  glm::dvec3 centreVelocity_{0.0};
  bool drawing_;
  RenderSettings settings_;
  Camera camera_;
  UploadedStateTextures uploaded_;  // the CPU engine's state, for the renderer
  PointSpriteRenderer renderer_;
  OffscreenTarget target_;
};

}  // namespace nbody
