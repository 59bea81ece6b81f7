#pragma once
// How close an engine's forces come to direct summation in double precision, on its current
// state: the percentiles of the relative force error |a - a_ref| / |a_ref| over a sample of bodies
// (force_error.h: every body up to 65536, above that a seeded random sample, each summed over all
// N on the GPU), and for an engine that estimates the potential itself (a tree) the relative
// error of that potential against the direct pair sum. For `nbody accuracy`, bench's approximate
// engines and the window's accuracy readout.

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "diagnostics/force_error.h"
#include "engines/engine.h"

namespace nbody {

struct AccuracyReport {
  ForceErrorPercentiles force;
  std::optional<double>
      potentialError;            // (W_engine - W_direct) / |W_direct|; nothing: not measured
  double directPotential = 0.0;  // W_direct, where measured (0: the error is undefined)
};

// The direct pair sum of the potential is O(N^2): above this N it is not measured by default.
inline constexpr std::size_t kLargestPotentialCheck = std::size_t(1) << 22;

struct AccuracySample {
  std::size_t allUpTo = kAllBodiesUpTo;  // every body judged up to this N
  std::size_t bodies = kSampledBodies;   // else this many, drawn with `seed`
  std::uint64_t seed = 1;
  // The potential's error measured up to this N (it reads the whole state: where the ranks hold
  // their bodies apart and nothing gathers them, never).
  std::size_t potentialUpTo = kLargestPotentialCheck;
};

// bench's sample for `bodies` bodies: kSampledBodies judged up to 2^24 bodies, then fewer, so that
// their reference (each judged body summed over all N in double) stays within 2^40 pair terms
// (about a minute and a half on an H200: round 38), never fewer than 1024 (at 950M bodies 1157).
AccuracySample benchAccuracySample(std::size_t bodies);

// Needs a current OpenGL 4.3+ context (the engine's, for a GPU engine). Waits for the GPU.
AccuracyReport measureAccuracy(Engine& engine, const StepParams& params,
                               const AccuracySample& sample = {});

// "median 1.2e-04, 90% ..., 99% ..., 99.9% ..., max ... (N bodies)".
std::string describePercentiles(const ForceErrorPercentiles& p);
// The report as the JSON reports (accuracy, bench) write it.
nlohmann::json accuracyJson(const AccuracyReport& report);

}  // namespace nbody
