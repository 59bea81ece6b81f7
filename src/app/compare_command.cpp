#include "app/compare_command.h"

#include <cstdio>
#include <stdexcept>

#include "app/run_options.h"
#include "io/atomic_file.h"
#include "io/png.h"

namespace nbody {
namespace {

std::string sizeText(const Image& image) {
  return std::to_string(image.width) + " x " + std::to_string(image.height);
}

}  // namespace

CLI::App* addCompareCommand(CLI::App& app, CompareOptions& options) {
  CLI::App* command = app.add_subcommand(
      "compare",
      "compare two pictures: prints the largest and the mean pixel delta (the largest difference of "
      "a pixel's R, G, B or A values, 0..255) and the fraction of pixels whose delta exceeds "
      "--max-delta; exits 0 when they agree within the thresholds, 1 when not");
  command->add_option("A", options.expected, "the expected picture (PNG)")->required()->check(CLI::ExistingFile);
  command->add_option("B", options.actual, "the picture to check (PNG)")->required()->check(CLI::ExistingFile);
  command->add_option("--diff", options.diff,
                      "write a picture of the differences here: grey where equal, yellow where "
                      "within --max-delta, red where beyond");
  addCompareThresholdOptions(*command, options.thresholds);
  return command;
}

void addCompareThresholdOptions(CLI::App& command, CompareThresholds& thresholds) {
  command.add_option("--max-delta", thresholds.maxDelta, "a pixel whose delta exceeds this is bad")
      ->check(CLI::Range(0, 255))
      ->capture_default_str();
  command.add_option("--mean-delta", thresholds.meanDelta, "largest mean delta allowed (255: no limit)")
      ->check(finiteNonNegative())
      ->capture_default_str();
  command.add_option("--max-bad-fraction", thresholds.maxBadFraction,
                     "largest fraction of bad pixels allowed, 0..1")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
}

int runCompare(const CompareOptions& options) {
  if (!options.diff.empty()) AtomicFileWriter probe(options.diff);  // an unwritable path fails now
  const Image expected = readPng(options.expected);
  const Image actual = readPng(options.actual);
  if (expected.width != actual.width || expected.height != actual.height)
    throw std::runtime_error(options.expected + " is " + sizeText(expected) + " but " +
                             options.actual + " is " + sizeText(actual) +
                             ": pictures of different sizes cannot be compared");
  const ImageDifference difference = compareImages(expected, actual, options.thresholds.maxDelta);
  if (!options.diff.empty())
    writePng(differenceImage(expected, actual, options.thresholds.maxDelta), options.diff);
  const bool agree = withinThresholds(difference, options.thresholds);
  std::printf("%s%s\n", describeDifference(difference, options.thresholds).c_str(),
              agree ? "compare: the pictures agree within the thresholds"
                    : "compare: the pictures DIFFER beyond the thresholds");
  return agree ? 0 : 1;
}

}  // namespace nbody
