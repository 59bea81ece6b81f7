#pragma once
// What the ranks of a distributed run (parallel/ranks.h) must do alike besides computing: fail
// together where a failure can strike some ranks and not others (making a GPU context, opening
// rank 0's outputs), and say once which GPU each rank runs on.

#include <functional>
#include <string>

namespace nbody {

// Runs `work` on every rank; where it fails on any rank it fails on every rank alike (a usage
// error stays one, and a stop a stop: app/run/stop_signals.h), with the message of the first rank
// that failed, naming it unless every rank failed the same way (or stopped), so that every rank
// ends at once and rank 0 says why. In a single process: `work()`.
void onEveryRankAlike(const std::function<void()>& work);
// Runs `work` on rank 0 alone (what rank 0 reads for every rank); where it fails, every rank fails
// alike with its message, as one process would.
void onLeaderForEveryRank(const std::function<void()>& work);

// The variables nbody reads that decide what a run computes: every rank must see the same values.
// (NBODY_EGL_PLATFORM, which only picks the way to a GPU, may differ: the renderers are compared
// once a context is made; NBODY_PANEL_CLICKS and NBODY_DUMP_PROGRAMS are rank 0's alone, which
// reads the clicks and writes the programs.)
inline constexpr const char* kRunDecidingVariables[] = {"NBODY_DISABLE_COMPUTE", "NBODY_GL_DEBUG",
                                                        "NBODY_LARGEST_TEXTURE"};

// Where several ranks run, they compare at their start the words of their command lines (all but
// the program's path) and the variables above: ranks started with different words (`mpirun -n 1
// nbody A : -n 1 nbody B`) or environments would compute different things, wait for ever in a
// collective the others never make, or write one output from two runs. The first difference, in
// one line naming the rank, the word or variable and both values; empty where they agree (and in
// one process). A collective.
std::string firstRankDifference(int argc, const char* const* argv);

// Once per process, where several ranks run: rank 0 prints each rank's host, EGL device and
// renderer (from the current context), and a warning when the renderers differ (the bits of a run
// on K GPUs are those of one GPU only on GPUs of one model and driver).
void reportRanksOnce(const std::string& device, const std::string& renderer);
// This rank's EGL device (ContextInfo::device) as its engine session made it; "" before.
const std::string& rankDevice();
void setRankDevice(const std::string& device);

}  // namespace nbody
