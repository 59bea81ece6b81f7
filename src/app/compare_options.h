#pragma once
// `nbody compare`'s options: the two pictures, the thresholds, where the picture of the
// differences goes.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/output_plan.h"
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

// The picture compare writes, and the pictures it reads (which it must not replace).
std::vector<NamedFile> compareOutputs(const CompareOptions& options);
std::vector<NamedFile> compareInputs(const CompareOptions& options);

}  // namespace nbody
