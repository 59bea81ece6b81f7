#include "app/compare_command.h"

#include <cstdio>
#include <optional>
#include <stdexcept>

#include "app/output_plan.h"
#include "io/output_file.h"
#include "io/png.h"

namespace nbody {
namespace {

std::string sizeText(const Image& image) {
  return std::to_string(image.width) + " x " + std::to_string(image.height);
}

}  // namespace

int runCompare(const CompareOptions& options) {
  checkDistinctOutputs(compareOutputs(options), std::nullopt, compareInputs(options));
  std::optional<OutputFile> diff;  // an unwritable path fails now
  if (!options.diff.empty()) diff.emplace(options.diff);
  const Image expected = readPng(options.expected);
  const Image actual = readPng(options.actual);
  if (expected.width != actual.width || expected.height != actual.height)
    throw std::runtime_error(options.expected + " is " + sizeText(expected) + " but " +
                             options.actual + " is " + sizeText(actual) +
                             ": pictures of different sizes cannot be compared");
  const ImageDifference difference = compareImages(expected, actual, options.thresholds.maxDelta);
  if (diff) {
    writePng(differenceImage(expected, actual, options.thresholds.maxDelta), *diff);
    diff->commit();
  }
  const bool agree = withinThresholds(difference, options.thresholds);
  std::printf("%s%s\n", describeDifference(difference, options.thresholds).c_str(),
              agree ? "compare: the pictures agree within the thresholds"
                    : "compare: the pictures DIFFER beyond the thresholds");
  return agree ? 0 : 1;
}

}  // namespace nbody
