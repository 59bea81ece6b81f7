// Long runs: tens of thousands of steps at small N, switching engines, reading back, checking. No
// NaN, no growth in memory, no GL objects left behind.

#include <fstream>
#include <unistd.h>

#include "engines/registry.h"
#include "engines/state_check.h"
#include "gl/gl_test.h"
#include "gl/objects.h"
#include "gl/state_readback.h"
#include "physics/scenes.h"

namespace nbody {
namespace {

long residentKilobytes() {
  long pages = 0, resident = 0;
  std::ifstream("/proc/self/statm") >> pages >> resident;
  return resident * (::sysconf(_SC_PAGESIZE) / 1024);
}

class SoakTest : public test::GlTest {};

TEST_F(SoakTest, TwentyThousandStepsLeakNothing) {
  const State start = findScene("plummer")->generate(64, 2);
  StepParams params;
  params.softening = 0.05;
  NonFiniteCheck check;
  gl::AsyncStateReadback ring(3);
  auto fragment = findEngine("fragment")->create(), compute = findEngine("compute")->create();
  State state = start;
  long objectsAfterWarmUp = 0, kilobytesAfterWarmUp = 0;
  const int rounds = 40, stepsPerRound = 500;  // 20000 steps
  for (int round = 0; round < rounds; ++round) {
    Engine& engine = round % 2 ? *compute : *fragment;  // switching keeps the state
    engine.upload(state);
    for (int s = 0; s < stepsPerRound; s += 50) {
      engine.step(*findMethod(round % 3 == 0 ? "rk4" : "euler"), params, 50);
      if (ring.full()) ring.takeOldest();
      ring.request(*engine.gpuState());
    }
    ASSERT_FALSE(check.firstNonFiniteBody(engine)) << "round " << round;
    state = engine.download();
    if (round == 3) {  // every program, texture and buffer exists by now
      objectsAfterWarmUp = gl::liveObjectCount;
      kilobytesAfterWarmUp = residentKilobytes();
    }
  }
  while (ring.pending() > 0) ring.takeOldest();
  EXPECT_EQ(gl::liveObjectCount, objectsAfterWarmUp);
  // Allow the allocator some slack; a leak of one state (64 bodies) per step would be 20 MB.
  // AddressSanitizer keeps freed memory in quarantine (up to 256 MB), so resident memory says
  // nothing there; its own checks stand in for this one in the sanitizer build.
#ifndef __SANITIZE_ADDRESS__
  EXPECT_LT(residentKilobytes() - kilobytesAfterWarmUp, 4096);
#else
  (void)kilobytesAfterWarmUp;
#endif
  EXPECT_FALSE(firstNonFiniteBody(state));
  fragment.reset();
  compute.reset();
  EXPECT_LT(gl::liveObjectCount, objectsAfterWarmUp);  // the engines gave theirs back
}

}  // namespace
}  // namespace nbody
