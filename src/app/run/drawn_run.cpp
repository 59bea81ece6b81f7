#include "app/run/drawn_run.h"

#include "app/run/stepping.h"
#include "parallel/ranks.h"

namespace nbody {
DrawnRun::DrawnRun(Engine& engine, const ShotOptions& options) : DrawnRun(engine, options, uploadShotStart(engine, options)) {}

DrawnRun::DrawnRun(Engine& engine, const ShotOptions& options, const ShotStart& start)
    : engine_(engine), method_(start.method), step_(start.step), drawing_(ranks().leader()),
      target_({options.width, options.height}) {
  first_ = engine.download();  // as the engine holds it (float32), like every later state
  firstTime_ = time_ = start.time;
  const double mass = totalMass(first_);
  if (mass > 0.0) centreVelocity_ = totalMomentum(first_) / mass;
  settings_ = resolveRenderSettings(options.render, first_);
  camera_ = placeCamera(parseCameraSpec(options.render.camera), boundingSphere(first_),
                        float(options.width) / float(options.height));
}

glm::vec3 DrawnRun::centreOfMassMoved() const { return glm::vec3(centreVelocity_ * (time_ - firstTime_)); }

void DrawnRun::advance(long long steps) {
  if (settings_.trailHalfLife <= 0.0f) {
    advanceSteps(engine_, method_, step_, steps);
    time_ += double(steps) * step_.dt;
    return;
  }
  // The last step's light goes in with the next picture.
  for (long long done = 1; done <= steps; ++done) {
    engine_.step(method_, step_, 1);
    time_ += step_.dt;
    if (done == steps || !drawing_) continue;
    const GpuStateView bodies = gpuStateOf(engine_, uploaded_);
    target_.draw([&] { renderer_.addToTrails(bodies, camera_, settings_, time_); });
  }
}

void DrawnRun::draw(const std::function<void()>& afterDrawing) {
  if (!drawing_) return;
  const GpuStateView bodies = gpuStateOf(engine_, uploaded_);
  target_.draw([&] {
    renderer_.draw(bodies, camera_, settings_, time_);
    if (afterDrawing) afterDrawing();
  });
}

}  // namespace nbody
