#include "app/bench_options.h"

#include <map>

namespace nbody {
namespace {

const std::map<std::string, Readback> kReadbacks{{"none", Readback::none}, {"sync", Readback::sync}, {"async", Readback::async}};

}  // namespace

std::string_view readbackName(Readback readback) {
  for (const auto& [name, value] : kReadbacks)
    if (value == readback) return name;
  return "?";
}

std::vector<NamedFile> benchOutputs(const BenchOptions& options) {
  std::vector<NamedFile> outputs;
  if (!options.json.empty()) outputs.push_back({"--json", options.json});
  if (!options.csv.empty()) outputs.push_back({"--csv", options.csv});
  return outputs;
}

CLI::App* addBenchCommand(CLI::App& app, BenchOptions& options) {
  CLI::App* command = app.add_subcommand("bench", "time engines: steps/s, interactions/s, GFLOPS");
  addRunOptions(*command, options.run, {.several = true});
  command->add_option("--readback", options.readbacks,
                      "read the state back to the CPU every step: none, sync (glGetTexImage, the "
                      "paper's table 5), async (pixel-buffer ring); comma separated")
      ->delimiter(',')
      ->transform(CLI::CheckedTransformer(kReadbacks))
      ->default_str("none");
  command->add_flag("--sweep", options.sweep, "time every combination of every engine option");
  addIntegerOption(*command, "--steps", options.stepsPerRepetition,
                   "steps per timed repetition (default: --seconds worth)", 1LL, kLargestRepetitionSteps, false);
  addNumberOption(*command, "--seconds", options.targetSeconds,
                  "about how long each repetition runs, when --steps is not given",
                  {0.0, kLongestRepetitionSeconds, false});
  addIntegerOption(*command, "--repetitions", options.repetitions, "timed repetitions; the median is reported", 1, 1000);
  command->add_option("--json", options.json, "also write the results to this JSON file")->check(outputPath());
  command->add_option("--csv", options.csv, "also write the results to this CSV file")->check(outputPath());
  return command;
}

}  // namespace nbody
