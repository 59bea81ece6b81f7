#include "app/run/output_plan.h"

#include <cctype>
#include <charconv>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <map>

#include "engines/engine.h"
#include "io/output_file.h"
#include "io/output_paths.h"
#include "util/checked_arithmetic.h"
#include "util/std_compat.h"

namespace nbody {
namespace {

bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Every run of 9 to 19 digits in `text`: what {step} could have become.
std::vector<long long> stepNumbersIn(const std::string& text) {
  std::vector<long long> numbers;
  for (std::size_t start = 0; start < text.size(); ++start) {
    if (!isDigit(text[start])) continue;
    std::size_t end = start;
    while (end < text.size() && isDigit(text[end]) && end - start < 19) ++end;
    for (std::size_t length = 9; start + length <= end; ++length) {
      long long number = 0;
      if (fromChars(text.data() + start, text.data() + start + length, number).ec == std::errc())
        numbers.push_back(number);
    }
  }
  return numbers;
}

bool inSeries(const SnapshotSeries& series, long long step) {
  return step > series.first && step <= series.last && step % series.every == 0;
}

[[noreturn]] void refuse(const std::string& first, const std::string& second,
                         const std::string& path, const std::string& why) {
  throw UsageError(first + " and " + second + " are the same file (" + path + "): " + why);
}

// A missing folder, or a folder at `path` (`itself` in the message), is a usage error saying
// `which`; what else keeps it from being written (a file nbody may not replace, a limit) fails as
// for any output.
void probeWritable(const std::filesystem::path& path, const std::string& which,
                   const std::string& itself, OutputWriter writer = OutputWriter::leader) {
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error))
    throw UsageError(which + "its folder " + folder.string() + " does not exist");
  if (std::filesystem::is_directory(path, error)) throw UsageError(which + itself + " is a folder");
  // A pipe there would hold the run in open() for a reader that never comes: nbody names these.
  const auto kind = std::filesystem::status(path, error).type();
  if (kind == std::filesystem::file_type::fifo || kind == std::filesystem::file_type::character)
    throw UsageError(which + itself + " is a " +
                     (kind == std::filesystem::file_type::fifo ? "pipe" : "device") +
                     "; snapshots and their index are files");
  OutputFile::checkWritable(path, writer);
}

[[noreturn]] void refuseOneFileForTwoSteps(const SnapshotSeries& series, long long first,
                                           long long second, const std::filesystem::path& file) {
  throw UsageError(series.option + ": the snapshots of steps " + std::to_string(first) + " and " +
                   std::to_string(second) + " are one file (" + file.string() +
                   "): each snapshot needs a name of its own once links and .. are resolved");
}

// Every snapshot of the series from step `first` on: the folder of each where each has its own,
// else the one folder, and the snapshots' names already taken in it.
void probeEverySnapshot(const SnapshotSeries& series, long long first) {
  const auto probe = [&series](long long step) {
    const std::filesystem::path path = snapshotPathFor(series.pattern, step);
    probeWritable(
        path,
        series.option + ": the snapshot of step " + std::to_string(step) + " cannot be written: ",
        path.string(), series.writer);
  };
  const std::filesystem::path folderPattern = std::filesystem::path(series.pattern).parent_path();
  if (folderPattern.native().find(kStepPlaceholder) != std::string::npos) {
    // A folder for each snapshot: each must exist (the loop ends at the first missing one), and be
    // its own (a folder that is a link to another's would put two snapshots in one file).
    std::map<std::filesystem::path, long long> files;
    for (long long step = first; step <= series.last;
         step = nextMultipleAfter(step, series.every).value_or(LLONG_MAX)) {
      probe(step);
      const auto [taken, added] =
          files.try_emplace(resolvedOutputPath(snapshotPathFor(series.pattern, step)), step);
      if (!added) refuseOneFileForTwoSteps(series, taken->second, step, taken->first);
    }
    return;
  }
  probe(first);  // the folder, with a file made and removed in it
  std::error_code error;
  const std::filesystem::path folder = folderPattern.empty() ? "." : folderPattern;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error))
    if (const auto step = snapshotStepAt(series, entry.path().string())) probe(*step);
}

}  // namespace

std::string snapshotPathFor(const std::string& pattern, long long step) {
  char number[32];
  std::snprintf(number, sizeof number, "%09lld", step);
  std::string path = pattern;
  for (auto at = path.find(kStepPlaceholder); at != std::string::npos;
       at = path.find(kStepPlaceholder, at))
    path.replace(at, kStepPlaceholder.size(), number);
  return path;
}

std::optional<long long> snapshotStepAt(const SnapshotSeries& series, const std::string& path) {
  std::vector<long long> candidates = stepNumbersIn(path);
  const std::vector<long long> resolved = stepNumbersIn(resolvedOutputPath(path).string());
  candidates.insert(candidates.end(), resolved.begin(), resolved.end());
  for (const long long step : candidates)
    if (inSeries(series, step) && sameOutputFile(snapshotPathFor(series.pattern, step), path))
      return step;
  return std::nullopt;
}

void checkDistinctOutputs(const CommandFiles& files, const std::optional<SnapshotSeries>& series) {
  const std::vector<NamedFile>& outputs = files.outputs;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedFile& output = outputs[i];
    for (std::size_t j = i + 1; j < outputs.size(); ++j)
      if (sameOutputFile(output.path, outputs[j].path))
        refuse(output.option, outputs[j].option, output.path,
               "one would overwrite or mix into the other");
    for (const NamedFile& input : files.inputs)
      if (sameOutputFile(output.path, input.path))
        refuse(output.option, input.option, output.path,
               "writing it would replace what is being read");
    if (!series) continue;
    if (const auto step = snapshotStepAt(*series, output.path))
      refuse(output.option, series->option + "'s snapshot of step " + std::to_string(*step),
             output.path, "one would overwrite the other");
  }
  if (!series) return;
  for (const NamedFile& input : files.inputs)
    if (const auto step = snapshotStepAt(*series, input.path))
      refuse(input.option, series->option + "'s snapshot of step " + std::to_string(*step),
             input.path, "writing it would replace what is being read");
}

void probeSnapshotPaths(const SnapshotSeries& series) {
  const auto first = nextMultipleAfter(series.first, series.every);
  if (!first || *first > series.last) return;  // no snapshot, and so no index
  // f-{step}/../s.hdf5: every step's snapshot is s.hdf5.
  if (std::filesystem::path(series.pattern).lexically_normal().native().find(kStepPlaceholder) ==
      std::string::npos)
    throw UsageError(series.option + " " + series.pattern + " names one file for every step (" +
                     std::filesystem::path(series.pattern).lexically_normal().string() +
                     "): {step} must stay in it once .. is resolved");
  probeEverySnapshot(series, *first);
  if (!series.index.empty())
    probeWritable(
        series.index,
        series.option + ": the XDMF index " + series.index + " cannot be written: ", "it");
}

}  // namespace nbody
