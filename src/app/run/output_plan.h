#pragma once
// The outputs one run writes, checked together before any work: no two of them may be the same
// file however they are named (io/output_paths.h), counting every snapshot a --snapshot-path
// pattern will name over the run, and no output, snapshots included, may be one of the run's
// inputs: an input is never replaced, not even by a run that read it whole first.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/output_file.h"

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
};

// What one command reads and writes, as its options name them (empty paths: none).
struct CommandFiles {
  std::vector<NamedFile> outputs;
  std::vector<NamedFile> inputs;
};
// The snapshots of a run: `pattern` at every multiple of `every` in (first, last], and the index
// kept beside them where the format has one (an HDF5 series' XDMF index; empty: none).
struct SnapshotSeries {
  std::string option, pattern;
  long long first = 0, last = 0, every = 1;
  std::string index;
  // Who writes the snapshots (rank 0, or each rank its part: the pattern is then this rank's); the
  // index is rank 0's.
  OutputWriter writer = OutputWriter::leader;
};

// Throws UsageError naming both options and the file when two outputs are the same file, an
// output or an input is one of the series' snapshots, or an output is one of the inputs.
void checkDistinctOutputs(const CommandFiles& files,
                          const std::optional<SnapshotSeries>& series = {});

// Throws UsageError naming the snapshot (its step and path) when one of the series could not be
// written because its folder is missing or a folder has its name, OutputError where another thing
// keeps it from being written (a link to a regular file, a file nbody may not write, a limit).
// Every snapshot of the run, however many: one file is made and removed in each folder they go
// to, and the names already taken are looked at. The index likewise, where a snapshot is due.
void probeSnapshotPaths(const SnapshotSeries& series);

// The step whose snapshot `series` writes to the same file as `path`, if there is one.
std::optional<long long> snapshotStepAt(const SnapshotSeries& series, const std::string& path);

}  // namespace nbody
