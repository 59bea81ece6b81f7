#pragma once
// A run drawn as it goes, the way `record` films it and `shot --trails` paints it: the initial
// state is uploaded, the camera and the colours are set from it, then steps and pictures take
// turns in an offscreen framebuffer of the picture's size. With trails on, the light of every step
// goes into the trails, not only that of the steps a picture is drawn at. The steps go in chunks
// that see a stop request, and the state is checked finite every 100 steps (as simulate's default
// --check-every): inside advance(), and between pictures through checkFiniteIfDue().

#include <functional>
#include <optional>
#include <string>

#include "app/run/shot_options.h"
#include "app/run/stepping.h"
#include "io/snapshot.h"
#include "render/body_field.h"
#include "render/offscreen.h"
#include "render/overlay_painter.h"
#include "render/picking.h"
#include "render/point_sprite_renderer.h"
#include "render/selection.h"
#include "render/state_textures.h"

namespace nbody {

class DrawnRun {
 public:
  // `engine` lives in the current OpenGL context and outlives this. Uses the options' engine-free
  // parts: problem, method, step, picture size and look (the camera placed to fit the first state).
  // `outcome` says what a run that fails leaves ("No picture was written"), for the message of a
  // state that became non-finite.
  DrawnRun(Engine& engine, const ShotOptions& options, std::string outcome);
  const Method& method() const { return method_; }
  const StepParams& step() const { return step_; }

  // Advances `steps` steps. False when a stop request ended it early, at a chunk boundary (about a
  // quarter second of work, or one step of an engine slower than that); throws when the state
  // became non-finite (checked every 100 steps along the way).
  bool advance(long long steps);
  // Puts `snapshot` in place of the run's state (record --play): its bodies, step and time; with
  // trails on, its light goes into them. Throws, changing nothing, where the engine cannot hold it.
  void show(const Snapshot& snapshot);
  // Throws naming the steps and the body when the state is not finite (unless found finite at
  // this step already): before a picture that is kept is drawn.
  void checkFinite();
  // The same once 100 steps or more were made since the last check (true: it checked): between
  // pictures, outside the timer queries of a frame (llvmpipe's next one counts the check's wait).
  bool checkFiniteIfDue();
  // Draws the current state into the offscreen picture, then calls `afterDrawing` (if any) while
  // the picture is still bound for reading (to capture it). Only rank 0 of a distributed run
  // draws (the others' pictures would go nowhere): the others only step. Where the ranks' parts
  // are drawn (drawsRanksParts) every rank draws its own bodies, composited; still only rank 0
  // calls `afterDrawing`.
  void draw(const std::function<void()>& afterDrawing = {});
  Image read() { return target_.read(); }

  Camera& camera() { return camera_; }  // the caller may turn it between pictures
  const RenderSettings& settings() const { return settings_; }
  long long stepNumber() const { return stepNumber_; }
  double time() const { return shownTime_.value_or(timeAt(stepNumber_)); }
  std::size_t bodyCount() const { return engine_.bodyCount(); }
  bool composited() const { return parts_; }  // each rank draws its own bodies (drawsRanksParts)
  // How far the centre of mass moved since the first state: at the total momentum over the total
  // mass (zero for every scene), so it is known without reading the state back.
  glm::vec3 centreOfMassMoved() const;

 private:
  DrawnRun(Engine& engine, const ShotOptions& options, const ShotStart& start, std::string outcome);
  bool advanceTo(long long target);
  void addLightOfStep();
  void followSelection(const GpuStateView& bodies);
  // The engine's bodies as the renderer reads them, with their field measured where the colours
  // need one (a tree evaluation each time: each picture, and each step with trails).
  GpuStateView bodiesToDraw();
  double timeAt(long long step) const { return firstTime_ + double(step - firstStep_) * step_.dt; }

  Engine& engine_;
  const Method& method_;
  StepParams step_;
  long long firstStep_ = 0, stepNumber_ = 0;
  long long litStep_ = 0,
            lastLitStep_ = 0;  // trails: the step just made, the last whose light goes in
  double firstTime_ = 0.0;
  std::optional<double> shownTime_;  // the time of the snapshot shown, once show() replaced the run
  glm::dvec3 centreVelocity_{0.0};
  bool parts_;    // drawsRanksParts: each rank draws its own bodies, composited
  bool drawing_;  // rank 0, or every rank where parts_
  RenderSettings settings_;
  bool fitDensityRange_ = false;  // --show density, automatic range: fitted to the first picture
  Camera camera_;
  ChunkedStepper stepper_;
  FiniteWatch watch_;
  std::string outcome_;
  UploadedStateTextures uploaded_;  // the CPU engine's state, for the renderer
  BodyField field_;                 // --color-by energy or density: what the colours need
  PointSpriteRenderer renderer_;
  OverlayPainter overlays_;
  Selection selection_;  // --select's bodies, followed at every picture (and step, with trails)
  BodyReader reader_;
  OffscreenTarget target_;
};

}  // namespace nbody
