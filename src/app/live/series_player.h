#pragma once
// Plays back a series of snapshots (what `simulate --snapshot-every` wrote, or any files nbody
// reads): the files in their natural order, a position that plays at a rate, pauses, steps and
// scrubs, and the next snapshot read on a thread of its own while the current one is shown, so that
// playing never waits on the disk when the disk keeps up. It reads files and keeps time; the window
// puts what it hands out into the engine (LiveSimulation::continueFrom). No OpenGL, no window.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "app/run/output_plan.h"
#include "io/snapshot.h"

namespace nbody {

// The files a shell pattern (`*`, `?`, `[...]`) names, in natural order: runs of digits compare
// as numbers, so step-2 comes before step-10 whether or not the numbers are padded. What is no
// regular file (a folder, a dangling link, a loop of links, a pipe) and the XDMF index of an HDF5
// series (`.xmf`) are passed over. Each file listed joins the files no output of the run may
// replace (io/files_read.h). Throws UsageError when nothing matches, naming what could not be
// looked at (a folder that cannot be searched).
std::vector<std::filesystem::path> listSeries(const std::string& pattern);
// The series a command will play, as inputs of its same-file check (`option` names them).
void addSeriesInputs(CommandFiles& files, const std::string& option, const std::string& pattern);
// The same for a command that plays the series (run --play, record --play): a usage error under
// mpiexec too, where a series plays in one process.
std::vector<std::filesystem::path> listPlayedSeries(const std::string& pattern);

class SeriesPlayer {
 public:
  using Loader = std::function<Snapshot(const std::filesystem::path&)>;

  // Reads the first file at once (and the second ahead); a series of no files is a
  // std::invalid_argument.
  explicit SeriesPlayer(std::vector<std::filesystem::path> files, Loader loader = readSnapshotFile);
  ~SeriesPlayer();
  SeriesPlayer(const SeriesPlayer&) = delete;
  SeriesPlayer& operator=(const SeriesPlayer&) = delete;

  std::size_t size() const { return files_.size(); }
  const std::filesystem::path& file(std::size_t index) const { return files_.at(index); }
  // The snapshot shown now, and its place in the series.
  std::size_t index() const { return index_; }
  bool playing() const { return playing_; }
  double rate() const { return rate_; }  // snapshots a second

  void play();   // from the first snapshot again where the last one is shown
  void pause();  // a snapshot that playing waits for is then not shown
  void setRate(double snapshotsPerSecond);  // > 0 and finite, else std::invalid_argument
  // Shows the snapshot at `index` (clamped to the series) next; playing or not stays as it is.
  void seek(std::size_t index);
  void stepBy(long long snapshots);
  // Playing waits in advance() for a file still being read ahead (scripts and tests: what each call
  // shows is then known), instead of coming back without it.
  void waitForReads(bool wait) { waitForReads_ = wait; }

  // Lets `seconds` of playing pass. The snapshot to show now, when it differs from the one shown
  // (the first call hands out the first file's, unless a seek asked for another): read ahead where
  // it was, else read now. Playing moves one snapshot a call at most, so a slow disk or frame
  // delays snapshots and skips none; while the next file is still being read ahead, playing waits
  // for it without holding the caller (nothing comes back yet; the window keeps drawing), unless
  // waitForReads(true). A seek or step waits for its file. A file that cannot be read gives
  // nothing; the position moves onto it all the same (playing goes on past it) and problem() says
  // which and why until a file is read again. Playing stops at the last snapshot.
  std::optional<Snapshot> advance(double seconds);
  // What went wrong with the latest file passed over ("step-3.nbody: truncated ..."), or empty.
  const std::string& problem() const { return problem_; }

 private:
  struct Pending {
    std::size_t index;
    std::future<Snapshot> snapshot;
  };
  void readAhead(std::size_t index);
  std::optional<Snapshot> take(std::size_t index);
  std::size_t clamped(long long index) const;
  bool stillReading(std::size_t index) const;

  std::vector<std::filesystem::path> files_;
  Loader loader_;
  std::optional<Pending> pending_;
  std::vector<std::future<Snapshot>> unwanted_;  // reads ahead a scrub left behind, until they end
  std::size_t index_ = 0;
  std::optional<std::size_t> wanted_;  // where a seek or playing points, until it is shown
  bool playedOn_ = false;              // playing, not a seek, set wanted_
  bool playing_ = false;
  bool waitForReads_ = false;
  double rate_ = 10.0;
  double clock_ = 0.0;  // seconds of playing towards the next snapshot
  std::string problem_;
  std::optional<Snapshot> first_;  // read at construction, handed out by the first advance
};

}  // namespace nbody
