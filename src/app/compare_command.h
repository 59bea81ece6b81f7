#pragma once
// `nbody compare`: do two pictures agree within thresholds? Prints what differs, optionally writes
// a picture of the differences, exits 0 (they agree) or 1 (they do not).

#include <string>

#include <CLI/CLI.hpp>

#include "render/image_compare.h"

namespace nbody {

struct CompareOptions {
  std::string expected, actual;
  std::string diff;  // where to write the picture of the differences; empty: nowhere
  CompareThresholds thresholds;
};

CLI::App* addCompareCommand(CLI::App& app, CompareOptions& options);
// --max-delta, --mean-delta, --max-bad-fraction; the golden-image tests read their thresholds
// with these too.
void addCompareThresholdOptions(CLI::App& command, CompareThresholds& thresholds);
int runCompare(const CompareOptions& options);

}  // namespace nbody
