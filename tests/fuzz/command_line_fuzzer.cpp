// Fuzzes nbody's command line: the input, split at NUL bytes, is the argument vector after
// "nbody". It is parsed and checked exactly as main does (app/commands/command_line.h), and nothing
// runs.
// Every vector must end as a command to run, help (exit 0) or a usage error (exit 2) on one line;
// any other exception, a crash, undefined behaviour or a hang (libFuzzer's -timeout) is a finding.
// What a parsed command then derives from its options without an engine (the window's first
// settings, the camera, the colours, the snapshot names) is computed too.

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "app/commands/command_line.h"
#include "app/commands/simulate_command.h"
#include "app/live/window_options.h"
#include "app/run/output_plan.h"
#include "app/run/picture.h"
#include "app/run/render_options.h"
#include "fuzz_support.h"

namespace {

constexpr std::size_t kMostArguments = 64;

std::vector<std::string> argumentsOf(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> words{"nbody"};
  std::string word;
  for (std::size_t k = 0; k < size && words.size() < kMostArguments; ++k) {
    if (data[k] != 0) {
      word += char(data[k]);
      continue;
    }
    words.push_back(word);
    word.clear();
  }
  if (!word.empty() || size == 0) words.push_back(word);
  return words;
}

// What the commands compute from their options before they need an engine.
void deriveWhatRunsNeed(const nbody::CommandLine& line, const nbody::CommandEntry& command) {
  const std::string& name = command.row->name;
  if (name == "run") (void)nbody::initialAppSettings(line.options<nbody::WindowOptions>("run"));
  if (name == "shot")
    (void)nbody::parseCameraSpec(line.options<nbody::ShotOptions>("shot").render.camera);
  const auto& simulate = line.options<nbody::SimulateOptions>("simulate");
  if (name == "simulate" && simulate.snapshotEvery > 0)
    (void)nbody::snapshotPathFor(simulate.snapshotPath, nbody::kLargestStepCount);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> words = argumentsOf(data, size);
  std::vector<const char*> argv;
  for (const std::string& word : words) argv.push_back(word.c_str());
  nbody::CommandLine line;
  std::ostringstream out, err;
  try {
    const auto parsed = nbody::parseCommandLine(line, int(argv.size()), argv.data(), out, err);
    if (const int* exitCode = std::get_if<int>(&parsed)) {
      nbody::fuzz::require(*exitCode == 0 || *exitCode == 2);
      const std::string message = err.str();
      if (*exitCode == 2)  // one line, and no byte a terminal would act on
        nbody::fuzz::require(message.find('\n') == message.size() - 1 &&
                             message.find('\x1b') == std::string::npos);
      return 0;
    }
    deriveWhatRunsNeed(line, *std::get<const nbody::CommandEntry*>(parsed));
  } catch (...) {
    nbody::fuzz::require(false);  // main would report a parser's bug as a run-time failure
  }
  return 0;
}
