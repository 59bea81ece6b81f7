#pragma once
// The outputs one run writes, checked together before any work: no two of them may be the same
// file however they are named (io/output_paths.h), counting every snapshot a --snapshot-path
// pattern will name over the run, and no output may replace one of the run's inputs where that
// loses it (compare --diff over a picture compared).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nbody {

inline constexpr std::string_view kStepPlaceholder = "{step}";
// The most steps, or steps between snapshots, rows and checks, that one command may ask for.
inline constexpr long long kLargestStepCount = 1LL << 40;

// The snapshot path for `step`: the pattern with {step} replaced by the step number, zero-padded
// to 9 digits so that the files sort by step.
std::string snapshotPathFor(const std::string& pattern, long long step);

// An output or input file and the option that named it ("--output", "A").
struct NamedFile {
  std::string option, path;
  // An output written whole once every input was read (simulate's final state): it may replace one.
  bool mayReplaceInputs = false;
};

// What one command reads and writes, as its options name them (empty paths: none).
struct CommandFiles {
  std::vector<NamedFile> outputs;
  std::vector<NamedFile> inputs;
};
// The snapshots of a run: `pattern` at every multiple of `every` in (first, last].
struct SnapshotSeries {
  std::string option, pattern;
  long long first = 0, last = 0, every = 1;
};

// Throws UsageError naming both options and the file when two outputs are the same file, an
// output is one of the series' snapshots, or an output is one of the inputs.
void checkDistinctOutputs(const CommandFiles& files, const std::optional<SnapshotSeries>& series = {});

// The step whose snapshot `series` writes to the same file as `path`, if there is one.
std::optional<long long> snapshotStepAt(const SnapshotSeries& series, const std::string& path);

}  // namespace nbody
