#include "app/run/drawn_run.h"

#include <algorithm>

#include "app/run/stop_signals.h"
#include "parallel/ranks.h"
#include "util/checked_arithmetic.h"

namespace nbody {
namespace {

constexpr long long kStepsBetweenChecks = 100;  // as simulate's default --check-every
// A GPU engine's frame of this many steps or fewer goes to it at once, never waited for: waiting
// would leave the GPU idle between frames (and on llvmpipe skew the timer queries that follow).
constexpr long long kStepsSubmittedAtOnce = 16;

}  // namespace

DrawnRun::DrawnRun(Engine& engine, const ShotOptions& options, std::string outcome)
    : DrawnRun(engine, options, uploadShotStart(engine, options), std::move(outcome)) {}

DrawnRun::DrawnRun(Engine& engine, const ShotOptions& options, const ShotStart& start,
                   std::string outcome)
    : engine_(engine),
      method_(start.method),
      step_(start.step),
      firstStep_(start.first),
      stepNumber_(start.first),
      firstTime_(start.time),
      parts_(start.parts),
      drawing_(ranks().leader() || parts_),
      stepper_(engine, start.method, step_),
      watch_(start.first),
      outcome_(std::move(outcome)),
      target_({options.width, options.height}) {
  // As the engine holds it (float32), like every later state; where parts_, this rank's part.
  const State first = parts_ ? engine.downloadPart().rows : engine.download();
  const Ranks& holders = parts_ ? ranks() : processAlone();     // of the bodies `first` holds
  if (drawing_ && !parts_ && !options.render.settings.density)  // parts_: no field needed
    field_.measure(gpuStateOf(engine_, uploaded_), options.render.settings.colorBy, step_);
  settings_ = resolveRenderSettings(options.render, first, firstTime_, field_.values(), holders);
  centreVelocity_ = glm::dvec3(settings_.centre.velocity);
  fitDensityRange_ = fitsDensityToPicture(options.render);
  if (drawing_) pickSelected(selection_, options.render, first, "nbody", options.quiet);
  camera_ = placeCamera(parseCameraSpec(options.render.camera), boundingSphere(first, holders),
                        float(options.width) / float(options.height));
  renderer_.compositeAcross(parts_ ? &ranks() : nullptr);
  if (settings_.trailHalfLife > 0.0f) stepper_.afterEachStep = [this] { addLightOfStep(); };
}

glm::vec3 DrawnRun::centreOfMassMoved() const {
  return glm::vec3(centreVelocity_ * (time() - firstTime_));
}

bool DrawnRun::advance(long long steps) {
  const long long target =
      addOrThrow(stepNumber_, steps, "step " + std::to_string(stepNumber_) + " plus the steps");
  lastLitStep_ = target - 1;  // the last step's light goes in with the next picture
  while (stepNumber_ < target) {
    const long long next =
        std::min(target, nextMultipleAfter(stepNumber_, kStepsBetweenChecks).value_or(target));
    if (!advanceTo(next)) return false;
    if (stepNumber_ < target) checkFinite();  // the last is checkFiniteIfDue's, after the picture
  }
  return true;
}

bool DrawnRun::checkFiniteIfDue() {
  if (stepNumber_ - watch_.lastFiniteStep() < kStepsBetweenChecks) return false;
  checkFinite();
  return true;
}

// Steps fewer than a chunk (a frame's few steps, once a chunk is known to take longer) go to the
// engine at once, without waiting for it; others go through the stepper, which waits at each
// chunk's end and looks for a stop.
bool DrawnRun::advanceTo(long long target) {
  const long long steps = target - stepNumber_;
  const bool atOnce =
      steps < stepper_.chunk() || (engine_.runsOnGl() && steps <= kStepsSubmittedAtOnce);
  if (stepper_.afterEachStep || !atOnce) {
    litStep_ = stepNumber_;
    return stepper_.advance(stepNumber_, target);
  }
  if (agreedStop()) return false;
  advanceSteps(engine_, method_, step_, steps);
  stepNumber_ = target;
  return true;
}

void DrawnRun::show(const Snapshot& snapshot) {
  engine_.checkCapacity(snapshot.state.size());
  engine_.uploadWithDoubles(snapshot.state, snapshot.doubles);
  stepNumber_ = snapshot.step;
  shownTime_ = snapshot.time;
  if (!drawing_) return;  // only rank 0 draws (every rank, where parts_)
  measureBodies(settings_, snapshot.state,
                snapshot.time);  // a series' bodies need not be one system
  selection_.findIn(snapshot.state);
  if (settings_.trailHalfLife <= 0.0f) return;
  const GpuStateView bodies = bodiesToDraw();
  target_.draw([&] { renderer_.addToTrails(bodies, camera_, settings_, snapshot.time); });
}

void DrawnRun::addLightOfStep() {
  if (++litStep_ > lastLitStep_ || !drawing_) return;
  const GpuStateView bodies = bodiesToDraw();
  const double time = timeAt(litStep_);
  target_.draw([&] { renderer_.addToTrails(bodies, camera_, settings_, time); });
  followSelection(bodies);  // every step's place, so an orbit is a line, not a few corners
}

GpuStateView DrawnRun::bodiesToDraw() {
  const GpuStateView bodies = parts_ ? ownBodiesOf(engine_) : gpuStateOf(engine_, uploaded_);
  if (settings_.density || !needsBodyField(settings_.colorBy)) return bodies;
  field_.measure(bodies, settings_.colorBy, step_);
  return field_.attachedTo(bodies);
}

void DrawnRun::followSelection(const GpuStateView& bodies) {
  if (!selection_.empty()) selection_.follow(reader_.read(bodies, selection_.indices()));
}

void DrawnRun::checkFinite() {
  if (watch_.lastFiniteStep() == stepNumber_ && stepNumber_ != firstStep_) return;
  watch_.check(engine_, stepNumber_, time(), [this] { return outcome_; });
}

void DrawnRun::draw(const std::function<void()>& afterDrawing) {
  if (!drawing_) return;
  const GpuStateView bodies = bodiesToDraw();
  followSelection(bodies);
  OverlayFacts facts;
  facts.time = time();
  facts.step = stepNumber_;
  facts.marked = selection_.marked();
  const std::vector<TreeCell> cells = settings_.shows(Overlay::Cells)
                                          ? treeCellsOf(engine_.download(), settings_.cellDepth)
                                          : std::vector<TreeCell>{};
  facts.cells = &cells;  // a readback a picture, only with the cells overlay
  target_.draw([&] {
    if (fitDensityRange_)
      settings_.colorRange = renderer_.fitDensityRange(bodies, camera_, settings_);
    fitDensityRange_ = false;
    renderer_.draw(bodies, camera_, settings_, time());
    overlays_.paint(camera_, settings_, facts);
    if (afterDrawing && ranks().leader()) afterDrawing();
  });
}

}  // namespace nbody
