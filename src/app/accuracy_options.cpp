#include "app/accuracy_options.h"

#include <cstdint>
#include <limits>

#include "app/output_plan.h"

namespace nbody {

CLI::App* addAccuracyCommand(CLI::App& app, AccuracyOptions& options) {
  CLI::App* command = app.add_subcommand(
      "accuracy", "relative force error of an engine against direct summation in double precision, and its speed");
  addRunOptions(*command, options.run, {.inputOption = "--input"});
  constexpr std::size_t kMostJudged = std::size_t{1} << 24;
  addIntegerOption<std::size_t>(*command, "--samples", options.sample.bodies,
                                "bodies judged above --all-up-to, drawn at random (each summed over all N)", 1,
                                kMostJudged);
  addIntegerOption<std::size_t>(*command, "--all-up-to", options.sample.allUpTo, "every body is judged up to this N", 1,
                                kMostJudged);
  addIntegerOption<std::uint64_t>(*command, "--sample-seed", options.sample.seed, "seed of the random sample", 0,
                                  std::numeric_limits<std::uint64_t>::max());
  command->add_option("--json", options.json, "also write the figures to this JSON file")->check(outputPath());
  command->add_flag("--quiet,-q", options.quiet, "print nothing but the figures and errors");
  return command;
}

}  // namespace nbody
