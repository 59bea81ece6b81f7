#include "app/live/live_simulation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "app/run/rank_agreement.h"
#include "app/run/run_options.h"
#include "app/run/snapshot_parts.h"
#include "app/run/snapshot_share.h"
#include "engines/registry.h"
#include "physics/method.h"
#include "physics/scenes.h"

namespace nbody {

LiveSimulation::LiveSimulation(AppSettings& settings, bool apart) : apart_(apart) {
  engine_ = createEngine(settings.run.engine, settings.run.engineSettings);
  engineName_ = settings.run.engine;
  settings.run.engineSettings = engine_->settings();
  regenerate(settings);
  settings.requests.take(Request::Reset);
}

void LiveSimulation::regenerate(AppSettings& settings) {
  try {
    checkCapacityFor(settings.run.scene.bodyCount());
  } catch (const std::runtime_error&) {
    settings.run.scene = scene_;  // the scene in effect stays, and the panel with it
    throw;
  }
  uploadScene(settings.run.scene);
  holdApartWherePossible(engine_->bodyCount());
  initialDoubles_.reset();
  initialIndices_.reset();
  loadedAt_.reset();
  scene_ = settings.run.scene;
  stepCount_ = 0;
  time_ = 0.0;
  originDt_ = 0.0;
}

// Where the ranks hold the bodies apart, each makes and uploads only its rows of the scene (the
// bits of the whole: SceneChoice::generateRows); else the whole.
void LiveSimulation::uploadScene(const SceneChoice& scene) {
  if (!engine_->gatheringDeferred() || !keepsApart(scene.bodyCount())) {
    initial_ = scene.generate();
    return engine_->upload(initial_);
  }
  StatePart part = sceneRowsOfRank(scene);
  engine_->uploadPart(part, scene.bodyCount());
  initial_ = std::move(part.rows);  // not copied: at N/K bodies a rank it is the host's largest
}

void LiveSimulation::startOverFromLoaded() {
  if (initialIndices_)
    engine_->uploadPart({initial_, *initialIndices_, std::nullopt},
                        scene_.options.bodyCount);  // the whole's N, since continueFrom
  else
    engine_->uploadWithDoubles(initial_, initialDoubles_);
  std::tie(stepCount_, time_) = *loadedAt_;
  originDt_ = 0.0;
}

void LiveSimulation::save(const AppSettings& settings, const std::filesystem::path& path) {
  Snapshot snapshot{engine_->download(), time_, stepCount_,
                    RunSettings{settings.run.method, stepNow(settings), scene_.options.seed}};
  snapshot.doubles = engine_->doublesBeyond(snapshot.state);
  writeSnapshotFile(snapshot, path);
}

void LiveSimulation::saveParts(const AppSettings& settings, const std::filesystem::path& path) {
  Snapshot frame{State{}, time_, stepCount_,
                 RunSettings{settings.run.method, stepNow(settings), scene_.options.seed}};
  writeOnEveryRank(snapshotPartOf(*engine_, std::move(frame), std::nullopt), ownPartPath(path));
}

namespace {

// The potential a loaded state runs in: its own (a version 3 snapshot's, or the command line's in
// its place), else --potential's, read with the G the state brings (a GADGET file's units).
SharedPotential potentialFor(const AppSettings& settings, const Snapshot& snapshot) {
  if (snapshot.settings && snapshot.settings->step.potential)
    return snapshot.settings->step.potential;
  if (settings.potentialText.empty()) return nullptr;
  const double gravity = snapshot.units      ? snapshot.units->gravity
                         : snapshot.settings ? snapshot.settings->step.gravity
                                             : settings.run.step.gravity;
  return std::make_shared<const ExternalPotential>(
      ExternalPotential::parse(settings.potentialText, gravity));
}

}  // namespace

StepParams LiveSimulation::stepNow(const AppSettings& settings) const {
  StepParams step = settings.run.step;
  const bool counting = originDt_ == step.dt;
  step.startTime = counting ? originTime_ : time_;
  step.stepsDone = counting ? stepCount_ - originStep_ : 0;
  step.stageFraction = 0.0;
  return step;
}

bool LiveSimulation::load(AppSettings& settings, const std::filesystem::path& path) {
  std::optional<RunStart> start;
  const bool couldHoldParts =
      apart_ && engine_->holdsParts(std::numeric_limits<std::size_t>::max());
  if (couldHoldParts && ranks().distributed())  // fails on every rank alike
    if (std::optional<SnapshotShare> share = readSnapshotShare(path, false))
      if (keepsApart(share->total)) start = shareRunStart(std::move(*share));
  // Read whole on every rank (rank 0 reads the bytes for all: io/input_file.h); a failure only
  // some ranks meet in parsing them (memory) fails on all.
  if (!start) onEveryRankAlike([&] { start = wholeRunStart(readSnapshotFile(path)); });
  checkSomethingPulls(start->snapshot.state, potentialFor(settings, start->snapshot), path.string(),
                      start->holders());
  continueFrom(settings, *start);
  return start->partIndices.has_value();
}

void LiveSimulation::continueFrom(AppSettings& settings, const Snapshot& snapshot) {
  continueFrom(settings, snapshot, nullptr, snapshot.state.size());
}

void LiveSimulation::continueFrom(AppSettings& settings, const RunStart& start) {
  continueFrom(settings, start.snapshot, start.partIndices ? &*start.partIndices : nullptr,
               start.bodies);
}

// `snapshot` whole (`indices` none) or this rank's part of a whole of `bodies` bodies.
void LiveSimulation::continueFrom(AppSettings& settings, const Snapshot& snapshot,
                                  const std::vector<std::uint64_t>* indices, std::size_t bodies) {
  if (snapshot.settings && !findMethod(snapshot.settings->method))
    throw std::runtime_error("the snapshot was made with method '" + snapshot.settings->method +
                             "', which this build does not offer");
  if (indices && !keepsApart(bodies))
    throw std::logic_error("a part of a snapshot for an engine that does not hold parts");
  const SharedPotential potential = potentialFor(settings, snapshot);
  checkCapacityFor(bodies);
  if (indices)
    engine_->uploadPart({snapshot.state, *indices, std::nullopt}, bodies);
  else
    engine_->uploadWithDoubles(snapshot.state, snapshot.doubles);
  holdApartWherePossible(bodies);
  initial_ = snapshot.state;
  initialDoubles_ = snapshot.doubles;
  initialIndices_ = indices ? std::optional(*indices) : std::nullopt;
  stepCount_ = snapshot.step;
  time_ = snapshot.time;
  loadedAt_ = {snapshot.step, snapshot.time};
  originDt_ = 0.0;
  if (snapshot.settings && snapshot.settings->step.potential) {  // the clock of its run
    originTime_ = snapshot.settings->step.startTime;
    originStep_ = snapshot.step - snapshot.settings->step.stepsDone;
    originDt_ = snapshot.settings->step.dt;
  }
  if (snapshot.settings) {
    settings.run.method = snapshot.settings->method;
    settings.run.step = snapshot.settings->step;
    settings.run.scene.options.seed = snapshot.settings->seed;
  }
  const double gravity = settings.run.step.gravity;
  const std::string units = takeFileGravity(snapshot, "the file", false, settings.run.step);
  // Said once, not again for every snapshot of a series played in the same units.
  if (!units.empty() && settings.run.step.gravity != gravity)
    std::fprintf(stderr, "run: %s\n", units.c_str());
  settings.run.step.potential = potential;
  // What apply() compares with: the loaded bodies are the scene now, not a reason to regenerate.
  settings.run.scene.options.bodyCount = bodies;
  scene_ = settings.run.scene;
}

void LiveSimulation::switchEngine(AppSettings& settings) {
  // The new engine is made before the old one goes, so a failure leaves the simulation as it was
  // (the bodies kept apart where they were).
  const bool wasApart = engine_->gatheringDeferred();
  try {
    std::unique_ptr<Engine> next = createEngine(settings.run.engine);
    next->checkCapacity(engine_->bodyCount());  // the whole state, on every rank's GPU
    engine_->deferGathering(false);             // the whole state moves across
    next->upload(engine_->download());
    engine_ = std::move(next);
  } catch (...) {
    if (wasApart) engine_->deferGathering(true);
    settings.run.engine = engineName_;
    throw;
  }
  holdApartWherePossible(engine_->bodyCount());
  engineName_ = settings.run.engine;
  settings.run.engineSettings = engine_->settings();
}

bool LiveSimulation::changeVariant(AppSettings& settings) {
  const EngineSettings current = engine_->settings();
  if (settings.run.engineSettings == current) return false;
  try {
    for (const auto& [name, value] : settings.run.engineSettings)
      if (current.count(name) && current.at(name) != value) engine_->setOption(name, value);
  } catch (const UsageError&) {
    settings.run.engineSettings = engine_->settings();
    throw;
  }
  settings.run.engineSettings = engine_->settings();
  holdApartWherePossible(engine_->bodyCount());  // the tree's `distribute` may differ
  return true;
}

void LiveSimulation::holdApartWherePossible(std::size_t bodies) {
  const bool apart = keepsApart(bodies) && engine_->heldParts() != nullptr;
  if (apart != engine_->gatheringDeferred()) engine_->deferGathering(apart);
}

void LiveSimulation::checkCapacityFor(std::size_t bodies) {
  const bool wasDeferred = engine_->gatheringDeferred();
  if (keepsApart(bodies) && !wasDeferred) engine_->deferGathering(true);
  try {
    // Agreed: a rank's free memory may refuse what the others' take, and the restoring below
    // gathers on every rank.
    onEveryRankAlike([&] { engine_->checkCapacity(bodies); });
  } catch (...) {
    if (!wasDeferred && engine_->gatheringDeferred()) engine_->deferGathering(false);
    throw;
  }
}

LiveSimulation::Changes LiveSimulation::apply(AppSettings& settings) {
  Changes changes;
  if (settings.run.engine != engineName_) {
    switchEngine(settings);
    changes.engineSwitched = true;
  }
  changes.variantChanged = changeVariant(settings);
  const bool otherScene = !(settings.run.scene == scene_);
  const bool reset = settings.requests.take(Request::Reset);
  if (reset && !otherScene && loadedAt_) {
    startOverFromLoaded();
    changes.sceneRegenerated = true;
  } else if (reset || otherScene) {
    regenerate(settings);
    changes.sceneRegenerated = true;
  }
  // Parts a step made since `distribute` became decompose are kept apart from the next frame on.
  holdApartWherePossible(engine_->bodyCount());
  return changes;
}

void LiveSimulation::advance(const AppSettings& settings, int steps) {
  if (steps <= 0) return;
  StepParams params = settings.run.step;
  if (params.dt != originDt_) {
    originTime_ = time_;
    originStep_ = stepCount_;
    originDt_ = params.dt;
  }
  params.startTime = originTime_;
  params.stepsDone = stepCount_ - originStep_;
  engine_->step(*findMethod(settings.run.method), params, steps);
  stepCount_ += steps;
  time_ = params.atStage(steps, 0.0).time();
}

void continueFromInput(LiveSimulation& simulation, AppSettings& settings,
                       std::optional<RunStart>& start, const WindowOptions& options) {
  if (!start) return;
  if (start->partIndices && !simulation.keepsApart(start->bodies)) {
    start.reset();  // freed before the whole is read
    start = startingRun(options, false);
  }
  simulation.continueFrom(settings, *start);
}

int autoStepsPerFrame(double stepSeconds, double otherSeconds, double refreshSeconds,
                      double busyFraction, double maxFrameSeconds) {
  if (!(stepSeconds > 0.0) || stepSeconds >= maxFrameSeconds) return 1;
  const double other = std::max(otherSeconds, 0.0);
  const auto fitting = [&](double frame) {
    return int(std::floor((0.97 * frame - other) / stepSeconds));
  };
  if (refreshSeconds <= 0.0) {
    // No vsync: a frame lasts as long as its work. Enough steps that the rest is a small share,
    // and at least a 60 Hz frame's worth (a frame capped at 60 a second idles for less).
    const double forShare = busyFraction / (1.0 - busyFraction) * other / stepSeconds;
    const int steps =
        std::max({1, int(std::ceil(forShare)), int(std::ceil(1.0 / 60.0 / stepSeconds))});
    return std::min(steps, std::max(1, int(maxFrameSeconds / stepSeconds)));
  }
  int best = 1;
  double bestBusy = -1.0;
  for (int periods = 1; periods == 1 || periods * refreshSeconds <= maxFrameSeconds; ++periods) {
    const double frame = periods * refreshSeconds;
    const int steps = fitting(frame);
    if (steps < 1) continue;
    const double busy = steps * stepSeconds / frame;
    if (busy >= busyFraction) return steps;
    if (busy > bestBusy) best = steps, bestBusy = busy;
  }
  return best;
}

int heldToWallClock(int wanted, int lastSteps, double lastFrameSeconds, double maxFrameSeconds) {
  if (lastSteps < 1 || !(lastFrameSeconds > 0.0)) return std::min(wanted, 1);
  const double most = lastFrameSeconds < maxFrameSeconds
                          ? 2.0 * double(lastSteps)
                          : std::floor(double(lastSteps) * maxFrameSeconds / lastFrameSeconds);
  return std::max(1, std::min(wanted, int(most)));
}

}  // namespace nbody
