#include "app/live_simulation.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include "app/command_line.h"
#include "physics/method.h"
#include "physics/scenes.h"

namespace nbody {

LiveSimulation::LiveSimulation(AppSettings& settings) {
  std::vector<std::string> options;
  for (const auto& [name, value] : settings.engineOptions) options.push_back(name + "=" + value);
  engine_ = createEngine(settings.engine, options);
  engineName_ = settings.engine;
  settings.engineOptions = choicesOf(*engine_);
  regenerate(settings);
  settings.reset = false;
}

std::map<std::string, std::string> LiveSimulation::choicesOf(const Engine& engine) {
  std::map<std::string, std::string> choices;
  for (const EngineOption& option : engine.options()) choices[option.name] = option.value;
  return choices;
}

void LiveSimulation::regenerate(const AppSettings& settings) {
  initial_ = findScene(settings.scene)->generate(settings.bodies, settings.seed);
  loadedAt_.reset();
  engine_->upload(initial_);
  scene_ = settings.scene;
  bodies_ = settings.bodies;
  seed_ = settings.seed;
  stepCount_ = 0;
  time_ = 0.0;
}

void LiveSimulation::startOverFromLoaded() {
  engine_->upload(initial_);
  std::tie(stepCount_, time_) = *loadedAt_;
}

void LiveSimulation::save(const AppSettings& settings, const std::filesystem::path& path) {
  writeSnapshotFile({engine_->download(), time_, stepCount_, RunSettings{settings.method, settings.step, seed_}},
                    path);
}

void LiveSimulation::load(AppSettings& settings, const std::filesystem::path& path) {
  continueFrom(settings, readSnapshotFile(path));
}

void LiveSimulation::continueFrom(AppSettings& settings, const Snapshot& snapshot) {
  if (snapshot.settings && !findMethod(snapshot.settings->method))
    throw std::runtime_error("the snapshot was made with method '" + snapshot.settings->method +
                             "', which this build does not offer");
  engine_->checkCapacity(snapshot.state.size());
  engine_->upload(snapshot.state);
  initial_ = snapshot.state;
  stepCount_ = snapshot.step;
  time_ = snapshot.time;
  loadedAt_ = {snapshot.step, snapshot.time};
  if (snapshot.settings) {
    settings.method = snapshot.settings->method;
    settings.step = snapshot.settings->step;
    settings.seed = snapshot.settings->seed;
  }
  // What apply() compares with: the loaded bodies are the scene now, not a reason to regenerate.
  settings.bodies = snapshot.state.size();
  scene_ = settings.scene;
  bodies_ = settings.bodies;
  seed_ = settings.seed;
}

LiveSimulation::Changes LiveSimulation::apply(AppSettings& settings) {
  Changes changes;
  if (settings.engine != engineName_) {
    // The new engine is made before the old one goes, so a failure leaves the simulation as it was.
    std::unique_ptr<Engine> next;
    try {
      next = createEngine(settings.engine);
    } catch (...) {
      settings.engine = engineName_;
      throw;
    }
    next->upload(engine_->download());
    engine_ = std::move(next);
    engineName_ = settings.engine;
    settings.engineOptions = choicesOf(*engine_);
    changes.engineSwitched = true;
  }
  const auto current = choicesOf(*engine_);
  if (settings.engineOptions != current) {
    try {
      for (const auto& [name, value] : settings.engineOptions)
        if (current.count(name) && current.at(name) != value) engine_->setOption(name, value);
    } catch (const UsageError&) {
      settings.engineOptions = choicesOf(*engine_);
      throw;
    }
    settings.engineOptions = choicesOf(*engine_);
    changes.variantChanged = true;
  }
  const bool otherScene = settings.scene != scene_ || settings.bodies != bodies_ || settings.seed != seed_;
  if (settings.reset && !otherScene && loadedAt_) {
    startOverFromLoaded();
    changes.sceneRegenerated = true;
  } else if (settings.reset || otherScene) {
    regenerate(settings);
    changes.sceneRegenerated = true;
  }
  settings.reset = false;
  return changes;
}

void LiveSimulation::advance(const AppSettings& settings, int steps) {
  if (steps <= 0) return;
  engine_->step(*findMethod(settings.method), settings.step, steps);
  stepCount_ += steps;
  time_ += steps * settings.step.dt;
}

int autoStepsPerFrame(double stepSeconds, double otherSeconds, double refreshSeconds, double busyFraction,
                      double maxFrameSeconds) {
  if (!(stepSeconds > 0.0) || stepSeconds >= maxFrameSeconds) return 1;
  const double other = std::max(otherSeconds, 0.0);
  const auto fitting = [&](double frame) { return int(std::floor((0.97 * frame - other) / stepSeconds)); };
  if (refreshSeconds <= 0.0) {
    // No vsync: a frame lasts as long as its work. Enough steps that the rest is a small share,
    // and at least a 60 Hz frame's worth.
    const double forShare = busyFraction / (1.0 - busyFraction) * other / stepSeconds;
    const int steps = std::max({1, int(std::ceil(forShare)), int(std::floor(1.0 / 60.0 / stepSeconds))});
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

}  // namespace nbody
