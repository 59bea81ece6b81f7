// `nbody record` as a user runs it: the movie decoded back through libavformat has the frames,
// size and rate asked for, and its first and last frames are the pictures `nbody shot` draws
// after the same steps with the same camera. Bad input is one line, exit 1 or 2, and no file; a
// recording stopped by a signal leaves no file either. A pipe or a device gets a fragmented MP4.

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <regex>

#include "io/png.h"
#include "support/cli_runner.h"
#include "support/video_reader.h"

namespace nbody {
namespace {

using test::ScratchFolder;

// N = 1024 moving a sprite's width every frame (4 steps of dt 0.05) before a fixed camera and
// colour range, so that shot, which fits both to its own state, draws with the same ones: the
// distance that fits the first state. A crowd of small coloured sprites loses up to ~6 dB to
// yuv420p's halved colour resolution alone, before any encoding; sprites 8 pixels wide keep that
// loss small (first frame 41 dB, last 37 dB on llvmpipe), while a frame off by one drops below
// 33 dB.
const std::string kScene =
    "--bodies 1024 --seed 3 --dt 0.05 --camera 30,20,17 --color-range 0,1.5 --point-size 8 --width "
    "160 "
    "--height 120";
constexpr int kStepsPerFrame = 4;

// Everything in the folder but what runNbody keeps of the output.
std::vector<std::string> filesLeftIn(const ScratchFolder& scratch) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(scratch.path())) {
    const std::string name = entry.path().filename().string();
    if (name != "stdout.txt" && name != "stderr.txt") names.push_back(name);
  }
  return names;
}

TEST(Record, FilmsTheFramesShotDrawsAtTheSizeAndRateAsked) {
  ScratchFolder scratch("record");
  const auto movie = scratch / "movie.mp4";
  const test::CommandResult recorded =
      test::runNbody("record " + kScene + " --frames 30 --fps 24 --steps-per-frame " +
                         std::to_string(kStepsPerFrame) + " --out " + movie.string(),
                     scratch);
  ASSERT_EQ(recorded.exitCode, 0) << recorded.err;
  EXPECT_TRUE(
      std::regex_search(recorded.err, std::regex(R"(30 frames in [0-9.]+ s: [0-9.]+ frames/s)")))
      << recorded.err;
  EXPECT_TRUE(std::regex_search(
      recorded.err,
      std::regex(
          R"(simulate [0-9.]+ ms \(GPU\), draw \+ readback [0-9.]+ ms \(GPU\); encode [0-9.]+ ms)")))
      << recorded.err;
  for (const auto& [steps, name] :
       {std::pair{0, "first.png"}, std::pair{29 * kStepsPerFrame, "last.png"}}) {
    const test::CommandResult shot =
        test::runNbody("shot " + kScene + " --steps " + std::to_string(steps) + " --out " +
                           (scratch / name).string(),
                       scratch);
    ASSERT_EQ(shot.exitCode, 0) << shot.err;
  }

  const test::DecodedMovie decoded = test::decodeMovie(movie);
  EXPECT_EQ(decoded.codec, "h264");
  EXPECT_EQ(decoded.pixelFormat, "yuv420p");
  EXPECT_EQ(decoded.width, 160);
  EXPECT_EQ(decoded.height, 120);
  EXPECT_DOUBLE_EQ(decoded.framesPerSecond, 24.0);
  EXPECT_TRUE(decoded.indexAtFront);
  ASSERT_EQ(decoded.frames.size(), 30u);
  const Image first = readPng(scratch / "first.png"), last = readPng(scratch / "last.png");
  EXPECT_GE(test::psnr(decoded.frames.front(), first), 35.0);
  EXPECT_GE(test::psnr(decoded.frames.back(), last), 35.0);
  // The comparison tells the two apart: the bodies moved between them.
  EXPECT_LT(test::psnr(decoded.frames.back(), first), 30.0);
  EXPECT_LT(test::psnr(decoded.frames.front(), last), 30.0);
}

// record --play: a series of three snapshots over six frames holds each for two, and every frame is
// the picture shot draws of its snapshot with the same camera and colours. Encoded losslessly
// (--crf 0), a frame differs from its shot by yuv420p's halved colour resolution alone; snapshots
// 20 steps apart move the bodies by more than a sprite, which the comparison sees.
TEST(Record, FilmsASeriesOfSnapshotsHoldingEachForItsShareOfTheFrames) {
  ScratchFolder scratch("record-play");
  const std::string view =
      "--camera 30,20,17 --color-range 0,1.5 --point-size 8 --width 160 --height 120";
  const auto step = [&](int number) {
    return scratch / ("step-0000000" + std::to_string(number) + ".nbody");
  };
  ASSERT_EQ(test::runNbody("simulate --bodies 1024 --seed 3 --dt 0.05 --steps 60 --snapshot-every "
                           "20 -q --snapshot-path " +
                               (scratch / "step-{step}.nbody").string() + " -o " +
                               (scratch / "end.nbody").string(),
                           scratch)
                .exitCode,
            0);
  const auto movie = scratch / "series.mp4";
  const test::CommandResult recorded =
      test::runNbody("record --play '" + (scratch / "step-*.nbody").string() + "' " + view +
                         " --frames 6 --crf 0 --out " + movie.string(),
                     scratch);
  ASSERT_EQ(recorded.exitCode, 0) << recorded.err;
  EXPECT_NE(recorded.err.find("6 frames of 3 snapshots"), std::string::npos) << recorded.err;
  std::vector<Image> shots;
  for (const int number : {20, 40, 60}) {
    const auto png = scratch / ("shot-" + std::to_string(number) + ".png");
    ASSERT_EQ(test::runNbody("shot --input " + step(number).string() + " --steps 0 " + view +
                                 " --out " + png.string(),
                             scratch)
                  .exitCode,
              0);
    shots.push_back(readPng(png));
  }
  const test::DecodedMovie decoded = test::decodeMovie(movie);
  ASSERT_EQ(decoded.frames.size(), 6u);
  for (std::size_t frame = 0; frame < 6; ++frame)
    for (std::size_t snapshot = 0; snapshot < 3; ++snapshot) {
      const double psnr = test::psnr(decoded.frames[frame], shots[snapshot]);
      if (snapshot == frame / 2)
        EXPECT_GE(psnr, 35.0) << "frame " << frame;
      else
        EXPECT_LT(psnr, 30.0) << "frame " << frame << " against snapshot " << snapshot;
    }
  // Without --frames, one frame a snapshot.
  ASSERT_EQ(test::runNbody("record -q --play '" + (scratch / "step-*.nbody").string() + "' " +
                               view + " --out " + movie.string(),
                           scratch)
                .exitCode,
            0);
  EXPECT_EQ(test::decodeMovie(movie).frames.size(), 3u);
}

// record --camera-path: the frames at the keyframes' times are the pictures shot draws from those
// keyframes' directions and distances (the bodies standing still: 0 steps a frame); the frame half
// way is neither.
TEST(Record, FollowsACameraPathThroughItsKeyframes) {
  ScratchFolder scratch("record-path");
  const std::string look =
      "--bodies 1024 --seed 3 --color-range 0,1.5 --point-size 8 --width 160 --height 120";
  std::ofstream(scratch / "path.txt") << "# seconds yaw pitch distance\n0 30 20 17\n1 120 10 12\n";
  const auto movie = scratch / "path.mp4";
  const test::CommandResult recorded = test::runNbody(
      "record " + look + " --camera-path " + (scratch / "path.txt").string() +
          " --fps 10 --frames 11 --steps-per-frame 0 --crf 0 --out " + movie.string(),
      scratch);
  ASSERT_EQ(recorded.exitCode, 0) << recorded.err;
  std::vector<Image> shots;
  for (const char* camera : {"30,20,17", "120,10,12"}) {
    const auto png = scratch / (std::string("shot-") + camera + ".png");
    ASSERT_EQ(
        test::runNbody("shot " + look + " --steps 0 --camera " + camera + " --out " + png.string(),
                       scratch)
            .exitCode,
        0);
    shots.push_back(readPng(png));
  }
  const test::DecodedMovie decoded = test::decodeMovie(movie);
  ASSERT_EQ(decoded.frames.size(), 11u);
  EXPECT_GE(test::psnr(decoded.frames[0], shots[0]), 35.0);
  EXPECT_GE(test::psnr(decoded.frames[10], shots[1]), 35.0);
  for (const Image& shot : shots) EXPECT_LT(test::psnr(decoded.frames[5], shot), 30.0);
}

TEST(Record, BadInputIsOneLineAndLeavesNoFile) {
  ScratchFolder scratch("record-bad"), inputs("record-bad-inputs");
  const std::string movie = (scratch / "movie.mp4").string();
  const std::string badPath = (inputs / "path.txt").string(),
                    goodPath = (inputs / "good.txt").string();
  std::ofstream(badPath) << "0 30 20 17\n1 40 twenty 17\n";
  std::ofstream(goodPath) << "0 30 20 17\n";
  const std::string base = "record --bodies 64 --width 32 --height 32 --frames 2 ";
  const struct {
    std::string arguments;
    int exitCode;
    std::string says;
  } cases[] = {
      {base + "--out " + (scratch / "no-such-folder" / "m.mp4").string(), 1, "cannot write"},
      {base + "--out " + scratch.path().string(), 1, "is a folder"},
      {"record --bodies 64 --frames 0 --out " + movie, 2, "--frames"},
      {"record --bodies 64 --seconds 0.001 --out " + movie, 2, "no frame"},
      {"record --bodies 64 --width 100000 --out " + movie, 2, "--width"},
      {"record --bodies 64 --width 8192 --height 8192 --out " + movie, 2, "more than H.264 allows"},
      {"record --bodies 64 --height 121 --out " + movie, 2, "even"},
      {"record --bodies 64 --fps 0 --out " + movie, 2, "--fps"},
      {"record --bodies 64 --fps 100000 --out " + movie, 2, "--fps"},
      {"record --bodies 64 --crf 99 --out " + movie, 2, "--crf"},
      {base + "--encoder no-such-encoder --out " + movie, 1,
       "no video encoder named no-such-encoder"},
      {base + "--encoder mpeg4 --out " + movie, 1, "does not make H.264"},
      {base + "--camera-path " + badPath + " --out " + movie, 1,
       badPath + ":2: 'twenty' is not a number"},
      {base + "--camera-path " + goodPath + " --orbit 5 --out " + movie, 2, "excludes"},
      {base + "--play '" + (inputs / "none-*.nbody").string() + "' --out " + movie, 2,
       "no snapshot file matches"},
  };
  for (const auto& bad : cases) {
    const test::CommandResult result = test::runNbody(bad.arguments, scratch);
    EXPECT_EQ(result.exitCode, bad.exitCode) << bad.arguments << "\n" << result.err;
    EXPECT_EQ(test::lineCount(result.err), 1u) << bad.arguments << "\n" << result.err;
    EXPECT_NE(result.err.find(bad.says), std::string::npos) << bad.arguments << "\n" << result.err;
    EXPECT_EQ(filesLeftIn(scratch), std::vector<std::string>{}) << bad.arguments;
  }
}

TEST(Record, AStoppedRecordingLeavesNoFile) {
  ScratchFolder scratch("record-stopped");
  test::RunningNbody run({"record", "--bodies", "64", "--width", "32", "--height", "32", "--frames",
                          "1000000", "--out", (scratch / "m.mp4").string()},
                         scratch);
  ASSERT_TRUE(test::waitUntil([&] {
    return test::readWholeFile(scratch / "stderr.txt").find("frames of") != std::string::npos;
  }));
  run.signal(SIGINT);
  const auto result = run.wait(60);
  EXPECT_EQ(result.exitCode, 130) << result.err;
  EXPECT_NE(result.err.find("nbody: stopped by SIGINT at frame "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("the movie was abandoned"), std::string::npos) << result.err;
  EXPECT_EQ(filesLeftIn(scratch), std::vector<std::string>{});
}

// Standard output redirected to a file is written through the shell's descriptor, in place: MP4
// cannot seek back there to complete its index, so the movie is fragmented, and still whole.
TEST(Record, AMovieStreamsThroughStandardOutput) {
  ScratchFolder scratch("record-stream");
  const test::CommandResult result =
      test::runNbody("record " + kScene + " --frames 12 --quiet --out /dev/stdout", scratch);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const test::DecodedMovie decoded = test::decodeMovie(scratch / "stdout.txt");
  EXPECT_EQ(decoded.codec, "h264");
  EXPECT_EQ(decoded.width, 160);
  EXPECT_EQ(decoded.height, 120);
  EXPECT_EQ(decoded.frames.size(), 12u);
}

}  // namespace
}  // namespace nbody
