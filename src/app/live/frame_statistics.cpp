#include "app/live/frame_statistics.h"

#include <algorithm>

#include "app/live/live_simulation.h"

namespace nbody {
namespace {

// A running average of measured seconds; below 0: nothing measured yet.
double smooth(double previous, double sample) {
  return previous >= 0.0 ? 0.7 * previous + 0.3 * sample : sample;
}

}  // namespace

void RateWindow::add(double seconds, long long steps) {
  samples_.push_back({seconds, steps});
  while (samples_.size() > 2 && samples_.back().seconds - samples_[1].seconds >= kSpan)
    samples_.pop_front();
}

double RateWindow::stepsPerSecond() const {
  if (samples_.size() < 2) return 0.0;
  return double(samples_.back().steps - samples_.front().steps) / span();
}

double RateWindow::frameSeconds() const {
  return samples_.size() < 2 ? 0.0 : span() / double(samples_.size() - 1);
}

double RateWindow::span() const {
  return std::max(samples_.back().seconds - samples_.front().seconds, 1e-9);
}

double withOverheadSample(double estimate, double sample) {
  sample = std::max(sample, 0.0);
  return smooth(estimate, estimate > 0.0 ? std::min(sample, 4.0 * estimate) : sample);
}

FrameStatistics::FrameStatistics() = default;

double FrameStatistics::secondsSinceStart() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

int FrameStatistics::stepsPerFrame(int fixed, double refreshSeconds) {
  if (auto seconds = stepTimer_.takeFinished()) stepSeconds_ = smooth(stepSeconds_, *seconds);
  if (auto seconds = drawTimer_.takeFinished()) drawSeconds_ = smooth(drawSeconds_, *seconds);
  if (fixed > 0) return stepsPerFrame_ = fixed;
  const int wanted = autoStepsPerFrame(stepSeconds_, std::max(drawSeconds_, frameOverheadSeconds_),
                                       refreshSeconds);
  stepsPerFrame_ = heldToWallClock(wanted, lastSteps_, lastFrameSeconds_);
  return stepsPerFrame_;
}

void FrameStatistics::timeSteps(const Engine& engine, int steps,
                                const std::function<void()>& advance) {
  if (engine.runsOnGl()) {
    stepTimer_.begin(steps);
    advance();
    stepTimer_.end();
  } else {
    const auto before = Clock::now();
    advance();
    stepSeconds_ =
        smooth(stepSeconds_, std::chrono::duration<double>(Clock::now() - before).count() / steps);
  }
  stepsSubmitted_ += steps;
}

void FrameStatistics::frameDone(int steps, bool vsync) {
  const double frameEnded = secondsSinceStart();
  if (!vsync && steps > 0 && stepSeconds_ > 0.0)
    frameOverheadSeconds_ =
        withOverheadSample(frameOverheadSeconds_, frameEnded - frameBegan_ - steps * stepSeconds_);
  if (steps > 0) lastSteps_ = steps, lastFrameSeconds_ = frameEnded - frameBegan_;
  frameBegan_ = frameEnded;
  rates_.add(frameEnded, stepsSubmitted_);
}

void FrameStatistics::forgetTiming() {
  stepTimer_.discardPending();
  stepSeconds_ = -1.0;
  frameOverheadSeconds_ = -1.0;
  lastSteps_ = 0;  // another engine's pace: from one step again
}

void FrameStatistics::startOver() {
  rates_.clear();
  forgetTiming();
}

void FrameStatistics::fill(PanelFigures& figures, Engine& engine, const Method& method) const {
  figures.iterationsPerSecond = rates_.stepsPerSecond();
  figures.interactionsPerSecond = figures.iterationsPerSecond * interactionsPerStep(engine, method);
  figures.gflops = figures.interactionsPerSecond * kFlopPerInteraction * 1e-9;
  figures.gpuMillisecondsPerStep =
      engine.runsOnGl() && stepSeconds_ >= 0 ? stepSeconds_ * 1e3 : -1.0;
  figures.drawMilliseconds = drawSeconds_ >= 0 ? drawSeconds_ * 1e3 : -1.0;
  figures.frameMilliseconds = rates_.frameSeconds() * 1e3;
  figures.stepsPerFrame = stepsPerFrame_;
}

}  // namespace nbody
