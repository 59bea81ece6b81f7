#pragma once
// `nbody accuracy`: how close an engine's forces come to direct summation in double precision on a
// problem (a scene or a file), and how long one of its force evaluations takes: the percentiles of
// the relative force error, the relative error of its own potential (a tree's), the time per step.

#include <string>

#include <nlohmann/json.hpp>

#include "app/accuracy_options.h"
#include "diagnostics/force_accuracy.h"

namespace nbody {

int runAccuracy(const AccuracyOptions& options);

// "median 1.2e-04, 90% ..., 99% ..., 99.9% ..., max ... (N bodies)".
std::string describePercentiles(const ForceErrorPercentiles& p);
nlohmann::json accuracyJson(const AccuracyReport& report);

}  // namespace nbody
