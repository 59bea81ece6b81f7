#include "app/simulate_options.h"

namespace nbody {
namespace {

CLI::Validator containsStepPlaceholder() {
  return CLI::Validator(
      [](std::string& pattern) -> std::string {
        if (pattern.find(kStepPlaceholder) == std::string::npos)
          return "must contain {step}, which becomes the step number";
        return {};
      },
      "PATTERN");
}

}  // namespace

std::vector<NamedFile> simulateOutputs(const SimulateOptions& options) {
  std::vector<NamedFile> outputs{{"--output", options.output}};
  if (!options.diagnostics.empty()) outputs.push_back({"--diagnostics", options.diagnostics});
  return outputs;
}

CLI::App* addSimulateCommand(CLI::App& app, SimulateOptions& options) {
  CLI::App* command = app.add_subcommand(
      "simulate", "advance a state and write the final state (CSV, a binary snapshot, GADGET or TIPSY)");
  addRunOptions(*command, options.run, {.inputOption = "--input"});
  addIntegerOption(*command, "--steps", options.steps, "number of steps K (more, after an input snapshot)", 0LL,
                   kLargestStepCount);
  addIntegerOption(*command, "--check-every", options.checkEvery,
                   "steps between checks for NaN or infinite values (on the GPU for GPU engines); the state "
                   "is checked before every snapshot, diagnostics row and the final write as well",
                   1LL, kLargestStepCount);
  command
      ->add_option("--output,-o", options.output,
                   "file for the final state: " + outputFormatsHelp())
      ->check(outputPath())
      ->capture_default_str();
  CLI::Option* every = addIntegerOption(*command, "--snapshot-every", options.snapshotEvery,
                                         "also write a snapshot whenever the step number is a multiple of K "
                                         "(step numbers go on from an input snapshot's)",
                                         1LL, kLargestStepCount, false);
  command
      ->add_option("--snapshot-path", options.snapshotPath,
                   "where --snapshot-every writes: {step} becomes the step number, 9 digits; " +
                       outputFormatsHelp() + " (.hdf5: with an XDMF index, NAME.xmf, for ParaView)")
      ->check(containsStepPlaceholder())
      ->check(outputPath())
      ->needs(every)
      ->capture_default_str();
  CLI::Option* diagnostics = command->add_option(
      "--diagnostics", options.diagnostics,
      "write kinetic, potential and total energy, the relative energy error, momentum, angular "
      "momentum and centre of mass to this CSV file at the first step, every "
      "--diagnostics-every steps and at the last step (on the GPU for GPU engines)")->check(outputPath());
  addIntegerOption(*command, "--diagnostics-every", options.diagnosticsEvery,
                   "steps between rows of --diagnostics (each row costs about one force evaluation)", 1LL,
                   kLargestStepCount)
      ->needs(diagnostics);
  command->add_flag("--quiet,-q", options.quiet, "print nothing but errors");
  return command;
}

}  // namespace nbody
