// The series player without a window: which files a pattern names and in what order, playing at a
// rate through to the end, pausing, stepping and scrubbing, a damaged file in the middle, and a
// series whose N changes, against files written by writeSnapshotFile and read back by the real
// loader (or a loader that counts what it was asked for).

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "app/live/series_player.h"
#include "engines/engine.h"
#include "physics/scenes.h"
#include "support/cli_runner.h"
#include "support/test_support.h"

namespace nbody {
namespace {

using test::ScratchFolder;

// Snapshot `step` of a made-up run: N bodies whose first position is the step.
Snapshot snapshotAt(long long step, std::size_t bodies = 16) {
  Snapshot snapshot;
  snapshot.state = findScene("plummer")->generate(bodies, 5);
  snapshot.state.positionMass[0].x = float(step);
  snapshot.step = step;
  snapshot.time = 0.01 * double(step);
  snapshot.settings.emplace().method = "rk2";
  return snapshot;
}

// step-S.nbody for every S, unpadded, so that only a natural order plays them in order.
std::vector<std::filesystem::path> writeSeries(const ScratchFolder& scratch,
                                               const std::vector<long long>& steps,
                                               std::size_t bodies = 16) {
  std::vector<std::filesystem::path> files;
  for (const long long step : steps) {
    files.push_back(scratch / ("step-" + std::to_string(step) + ".nbody"));
    writeSnapshotFile(snapshotAt(step, bodies), files.back());
  }
  return files;
}

std::vector<long long> stepsPlayed(SeriesPlayer& player, double secondsPerCall, int calls) {
  std::vector<long long> steps;
  for (int i = 0; i < calls; ++i)
    if (const std::optional<Snapshot> shown = player.advance(secondsPerCall))
      steps.push_back(shown->step);
  return steps;
}

TEST(SeriesPlayer, APatternNamesItsFilesInNaturalOrder) {
  ScratchFolder scratch("series-order");
  writeSeries(scratch, {10, 2, 1, 100, 20});
  std::ofstream(scratch / "step-3.txt") << "not in the series\n";
  std::filesystem::create_directory(scratch / "step-4.nbody");  // a folder is no snapshot
  const auto files = listSeries((scratch / "step-*.nbody").string());
  std::vector<std::string> names;
  for (const auto& file : files) names.push_back(file.filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"step-1.nbody", "step-2.nbody", "step-10.nbody",
                                             "step-20.nbody", "step-100.nbody"}));
  // Padded and unpadded numbers of the same value sort together, by value.
  writeSnapshotFile(snapshotAt(7), scratch / "step-007.nbody");
  const auto mixed = listSeries((scratch / "step-*.nbody").string());
  EXPECT_EQ(mixed[2].filename(), "step-007.nbody");
}

TEST(SeriesPlayer, APatternThatMatchesNothingIsAUsageErrorNamingIt) {
  ScratchFolder scratch("series-none");
  const std::string pattern = (scratch / "run-*.nbody").string();
  try {
    listSeries(pattern);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(pattern), std::string::npos) << e.what();
  }
}

TEST(SeriesPlayer, PlaysEverySnapshotInOrderAtItsRateAndStopsAtTheEnd) {
  ScratchFolder scratch("series-play");
  SeriesPlayer player(writeSeries(scratch, {0, 5, 10, 15}));
  player.waitForReads(true);
  ASSERT_EQ(player.size(), 4u);
  EXPECT_FALSE(player.playing());
  // The first call shows the first file; paused, nothing else comes however long it waits.
  EXPECT_EQ(stepsPlayed(player, 10.0, 3), std::vector<long long>{0});
  player.setRate(4.0);  // a snapshot every quarter second
  player.play();
  EXPECT_EQ(stepsPlayed(player, 0.1, 2), std::vector<long long>{});  // 0.2 s: not yet
  EXPECT_EQ(stepsPlayed(player, 0.1, 1), std::vector<long long>{5});
  // A long frame shows the next snapshot, not one further on: none is skipped.
  EXPECT_EQ(stepsPlayed(player, 5.0, 1), std::vector<long long>{10});
  EXPECT_EQ(stepsPlayed(player, 0.25, 5), std::vector<long long>{15});
  EXPECT_FALSE(player.playing());
  EXPECT_EQ(player.index(), 3u);
  // Playing again from the last snapshot starts over.
  player.play();
  EXPECT_EQ(stepsPlayed(player, 0.25, 5), (std::vector<long long>{0, 5, 10, 15}));
  EXPECT_THROW(player.setRate(0.0), std::invalid_argument);
  EXPECT_THROW(player.setRate(std::nan("")), std::invalid_argument);
}

TEST(SeriesPlayer, ScrubsAndStepsToAnySnapshotPausedOrPlaying) {
  ScratchFolder scratch("series-scrub");
  SeriesPlayer player(writeSeries(scratch, {0, 1, 2, 3, 4, 5, 6}));
  player.waitForReads(true);
  player.advance(0);
  player.seek(4);
  EXPECT_EQ(stepsPlayed(player, 0, 1), std::vector<long long>{4});
  player.stepBy(-1);
  EXPECT_EQ(stepsPlayed(player, 0, 1), std::vector<long long>{3});
  player.stepBy(100);  // clamped to the series
  EXPECT_EQ(stepsPlayed(player, 0, 1), std::vector<long long>{6});
  player.stepBy(-100);
  EXPECT_EQ(stepsPlayed(player, 0, 1), std::vector<long long>{0});
  player.seek(0);  // where it is: nothing new to show
  EXPECT_EQ(stepsPlayed(player, 0, 1), std::vector<long long>{});
  player.setRate(1.0);
  player.play();
  player.seek(5);  // while playing: it goes on from there
  EXPECT_EQ(stepsPlayed(player, 1.0, 3), (std::vector<long long>{5, 6}));
  EXPECT_FALSE(player.playing());
}

TEST(SeriesPlayer, ADamagedFileInTheMiddleIsNamedAndPassedOver) {
  ScratchFolder scratch("series-damaged");
  const auto files = writeSeries(scratch, {1, 2, 3, 4});
  std::filesystem::resize_file(files[2], std::filesystem::file_size(files[2]) - 8);
  SeriesPlayer player(files);
  player.waitForReads(true);
  player.advance(0);
  player.setRate(1.0);
  player.play();
  EXPECT_EQ(stepsPlayed(player, 1.0, 1), std::vector<long long>{2});
  EXPECT_EQ(player.problem(), "");
  EXPECT_EQ(stepsPlayed(player, 1.0, 1), std::vector<long long>{});
  EXPECT_EQ(player.index(), 2u);
  EXPECT_NE(player.problem().find("step-3.nbody"), std::string::npos) << player.problem();
  EXPECT_NE(player.problem().find("truncated"), std::string::npos) << player.problem();
  EXPECT_TRUE(player.playing());
  EXPECT_EQ(stepsPlayed(player, 1.0, 1), std::vector<long long>{4});
  EXPECT_EQ(player.problem(), "");  // said until a file is read again
  // Scrubbing onto it says so again; the shown snapshot stays what it was.
  player.seek(2);
  EXPECT_EQ(stepsPlayed(player, 0, 1), std::vector<long long>{});
  EXPECT_NE(player.problem().find("step-3.nbody"), std::string::npos) << player.problem();
  // A damaged first file is the player's own error: there is nothing to show.
  std::filesystem::resize_file(files[0], 3);
  EXPECT_THROW(SeriesPlayer{files}, std::runtime_error);
}

TEST(SeriesPlayer, ASeriesWhoseBodyCountChangesPlaysEachSnapshotWhole) {
  ScratchFolder scratch("series-mixed");
  std::vector<std::filesystem::path> files;
  for (const std::size_t bodies : {8u, 32u, 5u}) {
    files.push_back(scratch / ("n-" + std::to_string(bodies) + ".nbody"));
    writeSnapshotFile(snapshotAt(static_cast<long long>(bodies), bodies), files.back());
  }
  SeriesPlayer player(files);
  player.waitForReads(true);
  std::vector<std::size_t> sizes;
  player.setRate(1.0);
  player.play();
  for (int i = 0; i < 4; ++i)
    if (const std::optional<Snapshot> shown = player.advance(1.0)) {
      EXPECT_TRUE(test::sameBits(shown->state, snapshotAt(shown->step, shown->state.size()).state));
      sizes.push_back(shown->state.size());
    }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{8, 32, 5}));
}

// The next file is read ahead while the current one is shown; a scrub elsewhere reads what it
// asks for and nothing twice.
TEST(SeriesPlayer, ReadsTheNextFileAheadAndEachFileOnce) {
  ScratchFolder scratch("series-ahead");
  const auto files = writeSeries(scratch, {0, 1, 2, 3, 4, 5});
  std::vector<std::atomic<int>> reads(files.size());
  {  // the player goes; its destructor waits for the reads it left running
    SeriesPlayer player(files, [&](const std::filesystem::path& file) {
      for (std::size_t i = 0; i < files.size(); ++i)
        if (file == files[i]) ++reads[i];
      return readSnapshotFile(file);
    });
    player.advance(0);
    player.stepBy(1);
    player.advance(0);
    player.seek(4);
    player.advance(0);
    player.stepBy(1);
    player.advance(0);
  }
  std::vector<int> counts;
  for (const auto& count : reads) counts.push_back(count.load());
  // 0 at the start, 1 ahead then shown, 2 ahead (not wanted), 4 scrubbed to, 5 ahead then shown.
  EXPECT_EQ(counts, (std::vector<int>{1, 1, 1, 0, 1, 1}));
}

// A series played at a snapshot a second from its first, whose second file's read is held until
// release() (or 5 s: a player that waits for it fails the test rather than hang it).
struct HeldSecondRead {
  explicit HeldSecondRead(std::vector<std::filesystem::path> files)
      : release_(released_.get_future().share()),
        player(files, [this, second = files.at(1)](const std::filesystem::path& file) {
          if (file == second) release_.wait_for(std::chrono::seconds(5));
          return readSnapshotFile(file);
        }) {
    player.advance(0);
    player.setRate(1.0);
    player.play();
  }
  void release() { released_.set_value(); }

 private:
  std::promise<void> released_;
  std::shared_future<void> release_;

 public:
  SeriesPlayer
      player;  // last: it goes first, waiting for its reads while the promise is still there
};

// Playing does not hold the caller (the window's frame) while the next file is still being read:
// nothing comes back until it is there, then it does, and no snapshot is skipped on the way. A
// seek waits for its file.
TEST(SeriesPlayer, PlayingGoesOnDrawingWhileTheNextFileIsStillBeingRead) {
  ScratchFolder scratch("series-slow");
  HeldSecondRead held(writeSeries(scratch, {0, 1, 2}));
  SeriesPlayer& player = held.player;
  EXPECT_EQ(stepsPlayed(player, 1.0, 5), std::vector<long long>{});  // five frames while it reads
  EXPECT_EQ(player.index(), 0u);
  held.release();
  std::vector<long long> steps;
  for (int i = 0; i < 1000 && steps.size() < 2; ++i) {
    const std::vector<long long> now = stepsPlayed(player, 1.0, 1);
    steps.insert(steps.end(), now.begin(), now.end());
    if (now.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(steps, (std::vector<long long>{1, 2}));
  player.seek(0);
  EXPECT_EQ(stepsPlayed(player, 0.0, 1), std::vector<long long>{0});
}

// The rate holds between frames: what a frame leaves over counts towards the next snapshot, so
// frames of 0.4 s at a snapshot a second show snapshots after 1.2, 2.0 and 3.2 s (calls 3, 5 and
// 8), not after every third frame.
TEST(SeriesPlayer, PlaysAtItsRateWhateverTheFramesLength) {
  ScratchFolder scratch("series-rate");
  SeriesPlayer player(writeSeries(scratch, {0, 1, 2, 3, 4}));
  player.waitForReads(true);
  player.advance(0);
  player.setRate(1.0);
  player.play();
  std::vector<int> shownAt;
  for (int call = 1; call <= 8; ++call)
    if (player.advance(0.4)) shownAt.push_back(call);
  EXPECT_EQ(shownAt, (std::vector<int>{3, 5, 8}));
}

// Pausing while playing waits for a file being read: the frame is not held, and the snapshot
// playing asked for is not shown once the read ends.
TEST(SeriesPlayer, PausingWhileTheNextFileIsBeingReadShowsNothingMore) {
  ScratchFolder scratch("series-pause");
  HeldSecondRead held(writeSeries(scratch, {0, 1, 2}));
  SeriesPlayer& player = held.player;
  EXPECT_EQ(stepsPlayed(player, 1.0, 2), std::vector<long long>{});
  player.pause();
  const auto began = std::chrono::steady_clock::now();
  EXPECT_EQ(stepsPlayed(player, 1.0, 3), std::vector<long long>{});
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(2));
  held.release();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(stepsPlayed(player, 1.0, 3), std::vector<long long>{});
  EXPECT_EQ(player.index(), 0u);
  player.stepBy(1);  // the file read ahead, shown when asked for
  EXPECT_EQ(stepsPlayed(player, 0.0, 1), std::vector<long long>{1});
}

}  // namespace
}  // namespace nbody
