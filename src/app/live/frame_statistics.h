#pragma once
// The window's figures: steps per second over the last second of wall time, GPU time of a step
// and of drawing (GL_TIME_ELAPSED queries in small rings, never waited on), and what a frame costs
// besides its steps; from them, how many steps "auto" puts in a frame (autoStepsPerFrame in
// live_simulation.h), and what the panel and --print-stats show.

#include <chrono>
#include <deque>
#include <functional>

#include "app/live/panel_figures.h"
#include "engines/engine.h"
#include "gl/timer_ring.h"

namespace nbody {

// Steps per second over the last second or so of wall time, and the mean frame time there.
class RateWindow {
 public:
  void add(double seconds, long long steps);
  void clear() { samples_.clear(); }
  double stepsPerSecond() const;
  double frameSeconds() const;

 private:
  static constexpr double kSpan = 1.0;
  double span() const;
  struct Sample {
    double seconds;
    long long steps;
  };
  std::deque<Sample> samples_;
};

// The frame overhead estimate with one more frame's sample. A frame that also did one-off work (a
// screenshot written, a state downloaded, a stall) would inflate it: a sample counts for at most
// four times the estimate so far.
double withOverheadSample(double estimate, double sample);

class FrameStatistics {
 public:
  FrameStatistics();  // needs the window's current OpenGL context

  double secondsSinceStart() const;
  // Steps this frame: `fixed` when > 0, else as many as fill the frame (refreshSeconds: the
  // display's period with vsync, 0 without).
  int stepsPerFrame(int fixed, double refreshSeconds);
  // Runs `advance` (which submits `steps` steps) and times it: on the GPU for GPU engines, by
  // the wall clock for the others, which step before they return.
  void timeSteps(const Engine& engine, int steps, const std::function<void()>& advance);
  void beginDraw() { drawTimer_.begin(); }
  // After drawing: one frame more.
  void endDraw() {
    drawTimer_.end();
    ++frames_;
  }
  // After the frame was presented: the rates and the overhead of a frame without vsync.
  void frameDone(int steps, bool vsync);
  // A wait with nothing drawn (minimised): no frame's overhead.
  void skipFrame() { frameBegan_ = secondsSinceStart(); }

  // What was measured no longer holds (another engine, variant or method).
  void forgetTiming();
  // A new scene or state: the rates start over too.
  void startOver();

  long long frames() const { return frames_; }
  // The figures the panel shows, counted as `nbody bench` counts them.
  void fill(PanelFigures& figures, Engine& engine, const Method& method) const;

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_ = Clock::now();
  gl::TimerRing stepTimer_, drawTimer_;
  RateWindow rates_;
  double stepSeconds_ = -1.0,
         drawSeconds_ = -1.0;  // GPU time of a step, of drawing a frame; < 0: none yet
  // What a frame costs besides its steps, in wall time: drawing, and what no GPU timer sees, such
  // as presenting the picture (on a virtual display, a copy through the CPU). Known only without
  // vsync, whose wait it would include.
  double frameOverheadSeconds_ = -1.0, frameBegan_ = 0.0;
  // The last frame with steps: how many, and its wall time (heldToWallClock).
  int lastSteps_ = 0;
  double lastFrameSeconds_ = 0.0;
  long long frames_ = 0, stepsSubmitted_ = 0;
  int stepsPerFrame_ = 0;
};

}  // namespace nbody
