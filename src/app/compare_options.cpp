#include "app/compare_options.h"

#include "app/run_options.h"

namespace nbody {

CLI::App* addCompareCommand(CLI::App& app, CompareOptions& options) {
  CLI::App* command = app.add_subcommand(
      "compare",
      "compare two pictures: prints the largest and the mean pixel delta (the largest difference of "
      "a pixel's R, G, B or A values, 0..255) and the fraction of pixels whose delta exceeds "
      "--max-delta; exits 0 when they agree within the thresholds, 1 when not");
  command->add_option("A", options.expected, "the expected picture (PNG)")->required()->check(CLI::ExistingFile);
  command->add_option("B", options.actual, "the picture to check (PNG)")->required()->check(CLI::ExistingFile);
  command
      ->add_option("--diff", options.diff,
                   "write a picture of the differences here: grey where equal, yellow where "
                   "within --max-delta, red where beyond")
      ->check(outputPath());
  addCompareThresholdOptions(*command, options.thresholds);
  return command;
}

std::vector<NamedFile> compareOutputs(const CompareOptions& options) {
  if (options.diff.empty()) return {};
  return {{"--diff", options.diff}};
}

std::vector<NamedFile> compareInputs(const CompareOptions& options) {
  return {{"A", options.expected}, {"B", options.actual}};
}

void addCompareThresholdOptions(CLI::App& command, CompareThresholds& thresholds) {
  addIntegerOption(command, "--max-delta", thresholds.maxDelta, "a pixel whose delta exceeds this is bad", 0, 255);
  addNumberOption(command, "--mean-delta", thresholds.meanDelta, "largest mean delta allowed (255: no limit)",
                  nonNegative());
  addNumberOption(command, "--max-bad-fraction", thresholds.maxBadFraction,
                  "largest fraction of bad pixels allowed, 0..1", within(0.0, 1.0));
}

}  // namespace nbody
