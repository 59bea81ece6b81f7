#include "app/commands/compare_command.h"

#include <cstdio>
#include <optional>
#include <stdexcept>

#include "app/run/rank_agreement.h"
#include "app/run/run_options.h"
#include "io/output_file.h"
#include "io/png.h"

namespace nbody {
namespace {

std::string sizeText(const Image& image) {
  return std::to_string(image.width) + " x " + std::to_string(image.height);
}

}  // namespace

void addCompareOptions(CLI::App& command, CompareOptions& options) {
  command.add_option("A", options.expected, "the expected picture (PNG)")
      ->required()
      ->check(inputPath());
  command.add_option("B", options.actual, "the picture to check (PNG)")
      ->required()
      ->check(inputPath());
  command
      .add_option("--diff", options.diff,
                  "write a picture of the differences here: grey where equal, yellow where "
                  "within --max-delta, red where beyond")
      ->check(outputPath());
  addCompareThresholdOptions(command, options.thresholds);
}

CommandFiles compareFiles(const CompareOptions& options) {
  return {{{"--diff", options.diff}}, {{"A", options.expected}, {"B", options.actual}}};
}

void addCompareThresholdOptions(CLI::App& command, CompareThresholds& thresholds) {
  addIntegerOption(command, "--max-delta", thresholds.maxDelta,
                   "a pixel whose delta exceeds this is bad", 0, 255);
  addNumberOption(command, "--mean-delta", thresholds.meanDelta,
                  "largest mean delta allowed (255: no limit)", nonNegative());
  addNumberOption(command, "--max-bad-fraction", thresholds.maxBadFraction,
                  "largest fraction of bad pixels allowed, 0..1", within(0.0, 1.0));
}

// Exit codes as cmp's and diff's: 0 the pictures agree, 1 they differ (in size too), 2 trouble: a
// picture that cannot be read (it was 1, "they differ") or a --diff that cannot be written, as
// bad arguments are 2 (main exits with 2 for a UsageError).
int runCompare(const CompareOptions& options) {
  std::optional<OutputFile> diff;  // an unwritable path fails now
  Image expected, actual;
  try {
    onEveryRankAlike([&] {
      if (!options.diff.empty()) diff.emplace(options.diff);
    });
    expected = readPng(options.expected);
    actual = readPng(options.actual);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
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
