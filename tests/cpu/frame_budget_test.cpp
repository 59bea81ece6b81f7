// "auto" steps per frame: enough steps that the engine is busy most of the frame.

#include <algorithm>
#include <cmath>
#include <utility>

#include <gtest/gtest.h>

#include "app/live/live_simulation.h"

namespace nbody {
namespace {

TEST(AutoStepsPerFrame, OneStepUntilAStepHasBeenTimed) {
  EXPECT_EQ(autoStepsPerFrame(-1.0, -1.0, 1.0 / 60), 1);
  EXPECT_EQ(autoStepsPerFrame(0.0, 0.001, 0.0), 1);
}

TEST(AutoStepsPerFrame, OneStepWhenAStepIsLongerThanAFrame) {
  EXPECT_EQ(autoStepsPerFrame(1.0, 0.02, 1.0 / 60), 1);
  EXPECT_EQ(autoStepsPerFrame(1.0, 0.02, 0.0), 1);
}

// With vsync a frame lasts whole refresh periods: at 4.5 ms a step (the H100's fragment engine at
// N = 16384) three steps leave a fifth of a 60 Hz frame idle, seven fill two periods.
TEST(AutoStepsPerFrame, WithVsyncFillsWholeRefreshPeriods) {
  const double period = 1.0 / 60, step = 4.5e-3, draw = 0.3e-3;
  const int steps = autoStepsPerFrame(step, draw, period);
  const double frame = std::ceil((steps * step + draw) / period) * period;
  EXPECT_GE(steps * step / frame, 0.93) << steps;
  EXPECT_LE(frame, 0.25);
  EXPECT_EQ(steps, 7);
}

TEST(AutoStepsPerFrame, WithoutVsyncDrawingIsASmallShareOfTheFrame) {
  const double step = 2e-3, draw = 15e-3;
  const int steps = autoStepsPerFrame(step, draw, 0.0);
  EXPECT_GE(steps * step / (steps * step + draw), 0.92) << steps;
  EXPECT_LE(steps * step, 0.25);
  // A fast engine still gets at least a 60 Hz frame's worth of steps.
  EXPECT_GE(autoStepsPerFrame(1e-4, 1e-5, 0.0) * 1e-4, 1.0 / 60 - 1e-4);
}

TEST(AutoStepsPerFrame, KeepsTheFrameShortWhenDrawingIsSlow) {
  // Drawing as slow as 100 ms: no frame longer than a quarter of a second for the sake of speed.
  EXPECT_LE(autoStepsPerFrame(1e-3, 0.1, 0.0) * 1e-3, 0.25);
  EXPECT_LE(autoStepsPerFrame(1e-3, 0.1, 1.0 / 60) * 1e-3, 0.25);
}

// llvmpipe's GPU timers read compute work as next to nothing (1e-9 s a step was seen), which asked
// for 16.7 million steps in a frame; the wall clock holds "auto" to what it saw.
TEST(AutoStepsPerFrame, TheWallClockHoldsAWrongTimerToWhatItSaw) {
  const int wanted = autoStepsPerFrame(1e-9, 0.0, 0.0);
  EXPECT_GT(wanted, 1000000);
  EXPECT_EQ(heldToWallClock(wanted, 0, 0.0), 1);    // no frame seen yet: one step
  EXPECT_EQ(heldToWallClock(wanted, 8, 0.2), 16);   // then at most twice the last frame's
  EXPECT_EQ(heldToWallClock(wanted, 64, 0.5), 32);  // a frame too long: fewer in proportion
  EXPECT_EQ(heldToWallClock(wanted, 1, 3.0), 1);    // a step longer than a frame: still one
  EXPECT_EQ(heldToWallClock(5, 64, 0.1), 5);        // a right timer is not held back
}

// A served session (frames capped at 60 a second, not held to periods; the picture read back
// without a wait): the GPU's drawing is the rest of the frame. The H200's figures of round 23: the
// fragment engine at 16384 (4.49 ms a step, 0.97 ms drawing) and the tree at 1M (5.57 and 1.8 ms)
// keep 93% of the GPU stepping in frames of 30 a second or more; a 60 Hz period is filled, not
// left a step short.
TEST(AutoStepsPerFrame, AServedSessionKeepsThirtyFramesAndTheStepsAtOnce) {
  for (const auto& [step, draw] : {std::pair{4.49e-3, 0.97e-3}, std::pair{5.57e-3, 1.8e-3}}) {
    const int steps = autoStepsPerFrame(step, draw, 0.0);
    const double frame = std::max(steps * step + draw, 1.0 / 60);
    EXPECT_GE(steps * step / frame, 0.93) << step;
    EXPECT_LE(frame, 1.0 / 30) << step;
  }
}

}  // namespace
}  // namespace nbody
