#pragma once
// `nbody compare`: do two pictures agree within thresholds? Prints what differs, optionally writes
// a picture of the differences, exits 0 (they agree) or 1 (they do not). Its options: the two
// pictures, the thresholds, where the picture of the differences goes.

#include <string>

#include <CLI/CLI.hpp>

#include "app/run/output_plan.h"
#include "render/image_compare.h"

namespace nbody {

struct CompareOptions {
  std::string expected, actual;
  std::string diff;  // where to write the picture of the differences; empty: nowhere
  CompareThresholds thresholds;
};

void addCompareOptions(CLI::App& command, CompareOptions& options);
// --max-delta, --mean-delta, --max-bad-fraction; the golden-image tests read their thresholds
// with these too.
void addCompareThresholdOptions(CLI::App& command, CompareThresholds& thresholds);
// The picture compare writes, and the pictures it reads (which it must not replace).
CommandFiles compareFiles(const CompareOptions& options);
int runCompare(const CompareOptions& options);

}  // namespace nbody
