// Runs in an external potential as a user makes them (--potential, physics/external_potential.h):
// a snapshot carries the potential and a run resumed from it goes on in it, test particles (a
// state of massless bodies) move only where a potential pulls them, the energy includes the
// potential's and is conserved, and a bad spec is one line.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>

#include "diagnostics/diagnostics.h"
#include "engines/cpu_engine.h"
#include "io/snapshot.h"
#include "physics/external_potential.h"
#include "physics/method.h"
#include "physics/scenes.h"
#include "support/cli_runner.h"
#include "support/test_support.h"

namespace nbody {
namespace {

using test::runNbody;
using test::ScratchFolder;

const std::string kHernquistRun =
    "simulate --engine cpu --scene plummer --bodies 64 --seed 3 --method rk4 --dt 0.01 "
    "--softening 0.05 --potential 'hernquist:mass=2,a=0.5,centre=0.5;0;0' ";

// The snapshot keeps the potential (version 3, io/binary_snapshot.h); resumed without
// --potential, the run goes on in it: the same state as the run made whole, to the float32
// rounding of the snapshot (the CPU engine keeps doubles between steps). Without the potential
// the resumed run would be 1e-4 away.
TEST(PotentialRuns, ASnapshotCarriesThePotentialAndAResumedRunGoesOnInIt) {
  ScratchFolder scratch("potential-resume");
  ASSERT_EQ(runNbody(kHernquistRun + "--steps 20 --snapshot-every 10 --snapshot-path " +
                         (scratch / "s-{step}.nbody").string() + " -o " +
                         (scratch / "full.nbody").string(),
                     scratch)
                .exitCode,
            0);
  const Snapshot middle = readSnapshotFile(scratch / "s-000000010.nbody");
  ASSERT_TRUE(middle.settings && middle.settings->step.potential);
  EXPECT_EQ(middle.settings->step.potential->spec(),
            ExternalPotential::parse("hernquist:mass=2,a=0.5,centre=0.5;0;0").spec());
  const auto resumed =
      runNbody("simulate --engine cpu --input " + (scratch / "s-000000010.nbody").string() +
                   " --steps 10 -o " + (scratch / "resumed.nbody").string(),
               scratch);
  ASSERT_EQ(resumed.exitCode, 0) << resumed.err;
  const auto d = test::compareStates(readSnapshotFile(scratch / "full.nbody").state,
                                     readSnapshotFile(scratch / "resumed.nbody").state);
  EXPECT_LT(d.maxPosition, 1e-6);
  EXPECT_LT(d.maxVelocity, 1e-6);
}

// A body of no mass on a circular orbit about a point mass (G M = 1, radius 1): a quarter period
// later it is at (0, 1, 0). Without a potential the same file is refused, in one line.
TEST(PotentialRuns, MasslessBodiesMoveOnlyInAPotential) {
  ScratchFolder scratch("test-particle");
  {
    std::ofstream csv(scratch / "particle.csv");
    csv << "x,y,z,mass,vx,vy,vz\n1,0,0,0,0,1,0\n";
  }
  const std::string input = " --input " + (scratch / "particle.csv").string();
  const auto refused = runNbody(
      "simulate --engine cpu --steps 1 -o " + (scratch / "no.csv").string() + input, scratch);
  EXPECT_EQ(refused.exitCode, 1);
  EXPECT_NE(refused.err.find("every mass is zero"), std::string::npos) << refused.err;
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(scratch / "no.csv"));

  char dt[32];
  std::snprintf(dt, sizeof dt, "%.17g", std::numbers::pi / 2.0 / 1000.0);
  const auto moved = runNbody(
      "simulate --engine cpu --method rk4 --softening 0 --potential "
      "point:mass=1 --steps 1000 --dt " +
          std::string(dt) + " -o " + (scratch / "yes.csv").string() + input,
      scratch);
  ASSERT_EQ(moved.exitCode, 0) << moved.err;
  const Snapshot end = readSnapshotFile(scratch / "yes.csv");
  // RK4 at 1000 steps a quarter orbit: 1e-13; the CSV's float32 state: 6e-8.
  EXPECT_NEAR(end.state.positionMass[0].x, 0.0, 1e-6);
  EXPECT_NEAR(end.state.positionMass[0].y, 1.0, 1e-6);
  EXPECT_NEAR(end.state.velocity[0].x, -1.0, 1e-6);
}

// Leapfrog in a static Hernquist potential: E = T + W + sum m Phi_ext stays put, while T + W alone
// (the energy without the potential's term) changes by orders of magnitude more.
TEST(PotentialRuns, TheEnergyIncludesThePotentialsAndIsConserved) {
  StepParams params(2e-3, 0.05, 1.0);
  params.potential =
      std::make_shared<const ExternalPotential>(ExternalPotential::parse("hernquist:mass=5,a=1"));
  CpuEngine engine(2);
  engine.upload(findScene("plummer")->generate(256, 4));
  const Diagnostics before = computeDiagnostics(*engine.doubleState(), params);
  engine.step(*findMethod("leapfrog"), params, 500);
  StepParams after = params;
  after.stepsDone = 500;
  const Diagnostics now = computeDiagnostics(*engine.doubleState(), after);
  const double withPotential = std::abs(relativeEnergyError(before, now));
  const double selfOnly =
      std::abs((now.kinetic + now.potential) - (before.kinetic + before.potential)) /
      std::abs(before.kinetic + before.potential);
  EXPECT_LT(before.external, 0.0);
  EXPECT_LT(withPotential, 1e-5);
  EXPECT_GT(selfOnly, 100.0 * withPotential);
}

TEST(PotentialRuns, ABadSpecIsAUsageErrorOfOneLine) {
  ScratchFolder scratch("bad-potential");
  const auto result =
      runNbody("simulate --engine cpu --steps 1 --potential 'hernquist:mass=1' -o " +
                   (scratch / "out.csv").string(),
               scratch);
  EXPECT_EQ(result.exitCode, 2) << result.err;
  EXPECT_NE(result.err.find("hernquist needs a"), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(scratch / "out.csv"));
}

}  // namespace
}  // namespace nbody
