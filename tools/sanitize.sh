#!/usr/bin/env bash
# Builds the whole test suite and the libFuzzer targets with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in build-asan/, and runs the suite (--build-only: builds, runs
# nothing; tools/fuzz.sh runs the fuzzers from the same tree). Any memory error or undefined
# behaviour fails a test, and so does a leak in the tests without OpenGL. With OpenGL, leak
# detection is off: the driver (Mesa) unloads its modules at eglTerminate, and their allocations
# (and UBSan's own) then show as leaks of "<unknown module>" that no suppression can name. Our GL
# objects are counted instead (tests/gl/soak_test.cpp).
# One tree for both, at -O1 with line tables only: clang compiles Boost.Beast's server under the
# sanitizers three times faster than GCC at -O2 -g did, and the libraries are compiled once for the
# tests and the fuzzers (docs/development.md, "What CI runs").
set -euo pipefail
cd "$(dirname "$0")/.."
CC=clang CXX=clang++ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DNBODY_WERROR=OFF -DNBODY_SANITIZE=address,undefined -DNBODY_FUZZ=ON >/dev/null
cmake --build build-asan --parallel "$(nproc)" >/dev/null
if [ "${1:-}" = "--build-only" ]; then exit 0; fi
tools/seed_test_costs.sh build-asan
export LSAN_OPTIONS=suppressions=$PWD/tests/sanitizer/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  ctest --test-dir build-asan --output-on-failure --parallel "$(nproc)" --timeout 900 -L cpu "$@"
# Tests long for their numbers, not for their code: the 60,000-body file stepped by every engine
# against the CPU engine, the 20,000-step soak, and each engine variant against the CPU engine at
# N = 4096, 4099 and 8192 (half of this tier's time, the sanitized CPU reference's); measurements
# of accuracy and speed that repeat code other tests run (bench and accuracy under mpirun, the
# simulate-against-reference sweep, the relative opening criterion, the tree's convergence order,
# its default accuracy at 16384 bodies); and runs under mpirun that repeat another's code with
# other numbers (every method but RK2 on 2 to 4 ranks, the window in a potential, mergers, a run
# in a moving potential stopped under 3 and resumed under 2); and
# the screened collision runs against the host's (their code runs in CollisionEngines'), and
# bench's mergers against simulate's on the GPU engines (the cpu tier runs the CPU engine's); the
# decomposed tree's methods but RK2 (several stages a step, at a third of RK4's cost), its bench,
# and the probe's stages that its local essential trees run again (sort, links, straddling nodes,
# moments); and the web page, whose WebAssembly no sanitizer reaches; and the runs under mpiexec
# that read GADGET HDF5 parts, whose
# reader's child a sanitized rank forks while MPI's threads run: clang 14's AddressSanitizer does
# not lock its allocator around fork, and under load the child can wait for ever on a lock a thread
# of the parent held (5 runs in 12 here with two busy cores; the window's start from a part
# snapshot hung CI so, and a clean clone here); the share read's code runs sanitized
# in the cpu tier (SnapshotShare.*), the parts' writing and reading in GadgetHdf5Parts.*; and
# serve watched and steered by Chromium (its server runs here in the cpu tier's ServeServer.*,
# ServeViewers.* and ServeInput.*, and `nbody serve` in Window.AndServeDrawTheSamePicture).
# Their code runs here in the other tests and in the same variants at N = 1000; the Release tier
# runs them whole.
long_tests='FormatsGl.TheTwoGalaxyFileStepsOnEveryEngineAsOnTheCpu|SoakTest.TwentyThousandStepsLeakNothing'
long_tests+='|GpuVersusCpu.*_N(4096|4099|8192)'
long_tests+='|Ranks.BenchAndAccuracyReportTheFiguresOfOneProcess'
long_tests+='|IndependentReference.SimulateAgreesForEveryEngineAndMethod'
long_tests+='|TreeGravityTest.RelativeOpening|ConvergenceOrderMatchesEachMethod/"tree"'
long_tests+='|TreeDefaultAccuracy.MeetsTheTargetsAt16384Bodies'
long_tests+='|RanksGiveTheBitsOfOne.ForEveryEngineMethodAndRankCount/[a-z]+_(euler|rk4|leapfrog|symplectic_euler)( |$)'
long_tests+='|Window.InAPotentialUnderMpiexecShowsWhatOneProcessShows|Ranks.WithMergersGiveTheBitsOf'
long_tests+='|Ranks.InAMovingPotentialStopAndResume'
long_tests+='|DirectCollisionEngines.ScreenedRunsGiveTheBitsOfRunsLookedAtOnTheHost'
long_tests+='|CollisionEngines.BenchMergesWhatSimulateMerges'
long_tests+='|DecomposedTreeGivesTheBitsOfOne.WhileBodiesCrossSegments/"(euler|rk4|leapfrog|symplectic-euler)"'
long_tests+='|DecomposedTree.BenchReportsWhatEachRanksTreeHeldAndItsLets'
long_tests+='|DecomposedPieces.(EachWalkerSorts|EachWalkerBuilds|EveryRankFindsTheStraddling|EveryWalkerComputes)'
long_tests+='|Web.ThePageRunsTheFragmentEngineInChromium'
long_tests+='|DecomposedTree.(EachRankReadsItsShare|ASharedReadOrders|AShotFromParts|ASnapshotInParts'
long_tests+='|PastTheLargestTexture|AccuracyPastThePotentialsCheck)'
long_tests+='|Window.(FromAPartSnapshotUnderMpiexec|SavesInPartsWhileTheRanks)'
long_tests+='|Serve.ABrowserWatchesAndSteersTheSession'
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
  ctest --test-dir build-asan --output-on-failure --parallel "$(nproc)" --timeout 900 -L gl \
  -E "$long_tests" "$@"
