// VideoWriter and VideoEncoderThread without OpenGL: synthetic pictures in, the movie decoded back
// through libavformat (what a player sees): codec, size, rate, orientation, the pictures within
// H.264's loss; the file appears only once finished; bad settings, a missing or wrong encoder and
// an unwritable path are refused and leave nothing.

#include "io/video_writer.h"

#include <gtest/gtest.h>
#include <algorithm>

#include "support/cli_runner.h"
#include "support/video_reader.h"

namespace nbody {
namespace {

using test::ScratchFolder;

std::size_t entriesIn(const ScratchFolder& scratch) {
  return std::size_t(std::distance(std::filesystem::directory_iterator(scratch.path()), {}));
}

// A dark blue picture with a white square at (x, 8) and a light grey top quarter, so that moving
// and upside-down pictures show. Mostly light and dark rather than colour: yuv420p keeps colour
// at half the resolution, and this tests the plumbing, not that.
Image testPicture(int width, int height, int squareX) {
  Image image(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      std::uint8_t* p = image.pixel(x, y);
      const bool square = x >= squareX && x < squareX + 12 && y >= 8 && y < 20;
      const bool top = y < height / 4;
      p[0] = square ? 255 : top ? 190 : 20;
      p[1] = square ? 255 : top ? 180 : 25;
      p[2] = square ? 255 : top ? 170 : 60;
      p[3] = 255;
    }
  return image;
}

VideoSettings smallMovie() {
  VideoSettings settings;
  settings.width = 64;
  settings.height = 48;
  settings.framesPerSecond = 25;
  return settings;
}

TEST(VideoWriter, WritesAnH264Mp4OfThePicturesAtTheirSizeAndRate) {
  ScratchFolder scratch("video-writer");
  const auto path = scratch / "movie.mp4";
  std::vector<Image> pictures;
  {
    VideoWriter writer(path, smallMovie());
    for (int k = 0; k < 12; ++k) {
      pictures.push_back(testPicture(64, 48, 4 * k));
      writer.addFrame(pictures.back().rgba.data(), 64 * 4, k);
    }
    writer.finish();
    EXPECT_EQ(writer.framesWritten(), 12);
  }
  const test::DecodedMovie movie = test::decodeMovie(path);
  EXPECT_EQ(movie.codec, "h264");
  EXPECT_EQ(movie.pixelFormat, "yuv420p");
  EXPECT_NE(movie.container.find("mp4"), std::string::npos) << movie.container;
  EXPECT_TRUE(movie.indexAtFront) << "faststart: the index comes before the pictures";
  EXPECT_EQ(movie.width, 64);
  EXPECT_EQ(movie.height, 48);
  EXPECT_DOUBLE_EQ(movie.framesPerSecond, 25.0);
  EXPECT_NEAR(movie.durationSeconds, 12.0 / 25.0, 1e-6);
  ASSERT_EQ(movie.frames.size(), 12u);
  for (std::size_t k = 0; k < 12; ++k) {
    EXPECT_GE(test::psnr(movie.frames[k], pictures[k]), 35.0) << "frame " << k;
    if (k > 0) {
      EXPECT_LT(test::psnr(movie.frames[k], pictures[k - 1]), 30.0) << "frame " << k << " moved on";
    }
  }
}

TEST(VideoWriter, ReadsBottomUpRowsWithANegativeStride) {
  ScratchFolder scratch("video-writer-flip");
  const auto path = scratch / "flipped.mp4";
  const Image picture = testPicture(64, 48, 20);
  Image bottomUp(64, 48);  // as OpenGL reads it: the bottom row first
  for (int y = 0; y < 48; ++y) std::copy_n(picture.pixel(0, 47 - y), 64 * 4, bottomUp.pixel(0, y));
  VideoWriter writer(path, smallMovie());
  writer.addFrame(bottomUp.pixel(0, 47), -64 * 4, 0);
  writer.finish();
  const test::DecodedMovie movie = test::decodeMovie(path);
  ASSERT_EQ(movie.frames.size(), 1u);
  EXPECT_GE(test::psnr(movie.frames[0], picture), 35.0) << "upright";
  EXPECT_LT(test::psnr(movie.frames[0], bottomUp), 25.0) << "not upside down";
}

TEST(VideoWriter, NothingAppearsUnderItsNameUntilFinished) {
  ScratchFolder scratch("video-writer-atomic");
  const auto path = scratch / "movie.mp4";
  const Image picture = testPicture(64, 48, 0);
  {
    VideoWriter abandoned(path, smallMovie());
    abandoned.addFrame(picture.rgba.data(), 64 * 4, 0);
    EXPECT_FALSE(std::filesystem::exists(path));
  }
  EXPECT_EQ(entriesIn(scratch), 0u) << "an abandoned movie leaves no file, temporary or not";
  VideoWriter writer(path, smallMovie());
  writer.addFrame(picture.rgba.data(), 64 * 4, 0);
  writer.finish();
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(entriesIn(scratch), 1u);
}

TEST(VideoWriter, AGapInFrameIndicesShowsThePictureLonger) {
  ScratchFolder scratch("video-writer-gap");
  const auto path = scratch / "gap.mp4";
  VideoWriter writer(path, smallMovie());
  for (std::int64_t index : {0, 1, 5}) {
    const Image picture = testPicture(64, 48, int(index) * 8);
    writer.addFrame(picture.rgba.data(), 64 * 4, index);
  }
  writer.finish();
  const test::DecodedMovie movie = test::decodeMovie(path);
  EXPECT_EQ(movie.frames.size(), 3u);
  EXPECT_NEAR(movie.durationSeconds, 6.0 / 25.0, 1e-6);
}

TEST(VideoWriter, RefusesSettingsThatMakeNoMovie) {
  ScratchFolder scratch("video-writer-settings");
  const auto refused = [&](auto change) {
    VideoSettings settings = smallMovie();
    change(settings);
    EXPECT_THROW(VideoWriter(scratch / "bad.mp4", settings), std::invalid_argument);
  };
  refused([](VideoSettings& s) { s.width = 63; });
  refused([](VideoSettings& s) { s.height = 8; });
  refused([](VideoSettings& s) { s.width = kLargestVideoSide + 2; });
  refused([](VideoSettings& s) { s.width = s.height = kLargestVideoSide; });
  refused([](VideoSettings& s) { s.framesPerSecond = 0; });
  refused([](VideoSettings& s) { s.framesPerSecond = kFastestVideoRate + 1; });
  refused([](VideoSettings& s) { s.crf = 52; });
  EXPECT_EQ(entriesIn(scratch), 0u);
}

TEST(VideoWriter, AMissingOrWrongEncoderAndAnUnwritablePathFailBeforeAnyPicture) {
  ScratchFolder scratch("video-writer-failures");
  const auto failure = [&](const VideoSettings& settings,
                           const std::filesystem::path& path) -> std::string {
    try {
      VideoWriter writer(path, settings);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "no failure";
  };
  VideoSettings settings = smallMovie();
  settings.encoder = "no-such-encoder";
  EXPECT_NE(failure(settings, scratch / "a.mp4").find("no video encoder named no-such-encoder"),
            std::string::npos);
  settings.encoder = "mpeg4";  // part of every libavcodec
  EXPECT_NE(failure(settings, scratch / "b.mp4").find("does not make H.264"), std::string::npos);
  EXPECT_NE(failure(smallMovie(), scratch / "no-such-folder" / "c.mp4").find("cannot write"),
            std::string::npos);
  EXPECT_EQ(entriesIn(scratch), 0u);
}

TEST(VideoEncoderThread, EncodesOnItsThreadReleasingEveryPictureOnce) {
  ScratchFolder scratch("video-thread");
  const auto path = scratch / "movie.mp4";
  std::vector<Image> pictures;
  for (int k = 0; k < 8; ++k) pictures.push_back(testPicture(64, 48, 6 * k));
  std::vector<int> released(8, 0);
  VideoEncoderThread encoder(std::make_unique<VideoWriter>(path, smallMovie()), 2);
  for (int k = 0; k < 8; ++k)
    encoder.submit({pictures[std::size_t(k)].rgba.data(), 64 * 4, k,
                    [&released, k] { ++released[std::size_t(k)]; }});
  encoder.finish();
  EXPECT_EQ(released, std::vector<int>(8, 1));
  EXPECT_GT(encoder.busySeconds(), 0.0);
  const test::DecodedMovie movie = test::decodeMovie(path);
  ASSERT_EQ(movie.frames.size(), 8u);
  for (std::size_t k = 0; k < 8; ++k)
    EXPECT_GE(test::psnr(movie.frames[k], pictures[k]), 35.0) << k;
}

TEST(VideoEncoderThread, AFailureOnItsThreadReachesTheCallerAndLeavesNoFile) {
  ScratchFolder scratch("video-thread-failure");
  const Image picture = testPicture(64, 48, 0);
  int released = 0;
  {
    VideoEncoderThread encoder(std::make_unique<VideoWriter>(scratch / "movie.mp4", smallMovie()),
                               4);
    encoder.submit({picture.rgba.data(), 64 * 4, 3, [&] { ++released; }});
    encoder.submit({picture.rgba.data(), 64 * 4, 2, [&] { ++released; }});  // goes back in time
    EXPECT_THROW(encoder.finish(), std::logic_error);
  }
  EXPECT_EQ(released, 2) << "a picture is released even when it could not be encoded";
  EXPECT_EQ(entriesIn(scratch), 0u);
}

}  // namespace
}  // namespace nbody
