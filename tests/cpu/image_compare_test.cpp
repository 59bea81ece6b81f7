// The picture comparison behind `nbody compare` and the golden tests, PNG files, and the compare
// command as a user meets it.

#include <gtest/gtest.h>

#include "io/png.h"
#include "render/image_compare.h"
#include "support/cli_runner.h"

namespace nbody {
namespace {

using test::runNbody;
using test::ScratchFolder;

// A picture with something in it: a gradient and a few saturated pixels.
Image testPicture(int width, int height) {
  Image image(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      std::uint8_t* p = image.pixel(x, y);
      p[0] = std::uint8_t(x * 255 / std::max(1, width - 1));
      p[1] = std::uint8_t(y * 255 / std::max(1, height - 1));
      p[2] = std::uint8_t((x * y) % 256);
      p[3] = 255;
    }
  return image;
}

TEST(CompareImages, IdenticalPicturesPassWithTheStrictestThresholds) {
  const Image a = testPicture(64, 48);
  const ImageDifference d = compareImages(a, a, 0);
  EXPECT_EQ(d.maxDelta, 0);
  EXPECT_EQ(d.meanDelta, 0.0);
  EXPECT_EQ(d.badPixels, 0u);
  EXPECT_TRUE(withinThresholds(d, CompareThresholds{}));
}

TEST(CompareImages, OneChangedPixelBeyondTheThresholdFails) {
  const Image a = testPicture(64, 48);
  Image b = a;
  b.pixel(10, 20)[1] = std::uint8_t(b.pixel(10, 20)[1] + 9);  // green up by 9
  const CompareThresholds thresholds{8, 255.0, 0.0};
  const ImageDifference d = compareImages(a, b, thresholds.maxDelta);
  EXPECT_EQ(d.maxDelta, 9);
  EXPECT_EQ(d.worstPixel, glm::ivec2(10, 20));
  EXPECT_EQ(d.badPixels, 1u);
  EXPECT_DOUBLE_EQ(d.meanDelta, 9.0 / (64 * 48));
  EXPECT_FALSE(withinThresholds(d, thresholds));
  const std::string text = describeDifference(d, thresholds);
  EXPECT_NE(text.find("max delta 9 at (10, 20)"), std::string::npos) << text;
  EXPECT_NE(text.find("bad pixels 1 of 3072"), std::string::npos) << text;
  EXPECT_NE(text.find("EXCEEDED"), std::string::npos) << text;
}

TEST(CompareImages, AChangeWithinTheThresholdPasses) {
  const Image a = testPicture(64, 48);
  Image b = a;
  b.pixel(3, 4)[0] = std::uint8_t(b.pixel(3, 4)[0] ^ 8);  // a difference of exactly 8
  EXPECT_TRUE(withinThresholds(compareImages(a, b, 8), CompareThresholds{8, 255.0, 0.0}));
}

TEST(CompareImages, TheBadFractionAndTheMeanAreLimitsToo) {
  const Image a = testPicture(10, 10);
  Image b = a;
  for (int x = 0; x < 3; ++x) b.pixel(x, 0)[2] = std::uint8_t(b.pixel(x, 0)[2] + 50);  // 3 of 100
  const ImageDifference d = compareImages(a, b, 10);
  EXPECT_DOUBLE_EQ(d.badFraction(), 0.03);
  EXPECT_DOUBLE_EQ(d.meanDelta, 1.5);
  EXPECT_TRUE(withinThresholds(d, {10, 1.5, 0.03}));
  EXPECT_FALSE(withinThresholds(d, {10, 1.5, 0.02}));  // too many bad pixels
  EXPECT_FALSE(withinThresholds(d, {10, 1.4, 0.03}));  // mean too large
}

TEST(CompareImages, PicturesOfDifferentSizesAreAnError) {
  EXPECT_THROW(compareImages(testPicture(8, 8), testPicture(8, 9), 0), std::invalid_argument);
  EXPECT_THROW(differenceImage(testPicture(8, 8), testPicture(9, 8), 0), std::invalid_argument);
}

TEST(CompareImages, TheDifferencePictureMarksBadPixelsRed) {
  const Image a = testPicture(16, 16);
  Image b = a;
  b.pixel(5, 6)[0] = std::uint8_t(b.pixel(5, 6)[0] ^ 0x40);
  b.pixel(7, 8)[2] = std::uint8_t(b.pixel(7, 8)[2] ^ 1);
  const Image diff = differenceImage(a, b, 2);
  const std::uint8_t* bad = diff.pixel(5, 6);
  const std::uint8_t* small = diff.pixel(7, 8);
  const std::uint8_t* same = diff.pixel(0, 0);
  EXPECT_EQ(std::vector<int>(bad, bad + 4), (std::vector<int>{255, 0, 0, 255}));
  EXPECT_EQ(small[2], 0);  // yellow
  EXPECT_GT(small[0], 0);
  EXPECT_EQ(same[0], same[1]);  // grey
}

TEST(Png, RoundTripsExactlyAndWritesAtomically) {
  ScratchFolder scratch("png");
  const Image image = testPicture(33, 17);  // odd width: rows not a multiple of 4 bytes in RGB
  writePng(image, scratch / "a.png");
  const Image back = readPng(scratch / "a.png");
  EXPECT_EQ(back.width, 33);
  EXPECT_EQ(back.height, 17);
  EXPECT_EQ(back.rgba, image.rgba);
  EXPECT_THROW(writePng(image, "/nonexistent-folder/a.png"), std::runtime_error);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(scratch.path()), {}), 1)
      << "no temporary file may be left behind";
}

TEST(Png, ReadingSomethingElseSaysWhichFile) {
  ScratchFolder scratch("png-bad");
  std::ofstream(scratch / "text.png") << "not a picture";
  try {
    readPng(scratch / "text.png");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("text.png"), std::string::npos) << e.what();
  }
}

class CompareCommand : public ::testing::Test {
 protected:
  CompareCommand() : scratch_("compare-command") {
    writePng(testPicture(40, 30), a());
    Image changed = testPicture(40, 30);
    changed.pixel(1, 2)[0] = std::uint8_t(changed.pixel(1, 2)[0] ^ 0x80);
    writePng(changed, b());
    writePng(testPicture(30, 40), small());
  }
  std::string a() const { return (scratch_ / "a.png").string(); }
  std::string b() const { return (scratch_ / "b.png").string(); }
  std::string small() const { return (scratch_ / "small.png").string(); }
  ScratchFolder scratch_;
};

TEST_F(CompareCommand, ExitsZeroForTheSamePicture) {
  const auto result = runNbody("compare " + a() + " " + a(), scratch_);
  EXPECT_EQ(result.exitCode, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("max delta 0"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("agree"), std::string::npos) << result.out;
}

TEST_F(CompareCommand, ExitsOneAndWritesTheDifferencesWhenAPixelDiffers) {
  const auto diff = scratch_ / "diff.png";
  const auto result =
      runNbody("compare " + a() + " " + b() + " --max-delta 8 --diff " + diff.string(), scratch_);
  EXPECT_EQ(result.exitCode, 1) << result.out << result.err;
  EXPECT_NE(result.out.find("max delta 128 at (1, 2)"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("DIFFER"), std::string::npos) << result.out;
  const Image written = readPng(diff);
  EXPECT_EQ(written.pixel(1, 2)[0], 255);
  EXPECT_EQ(written.pixel(1, 2)[1], 0);
}

TEST_F(CompareCommand, AcceptsTheDifferenceWhenTheThresholdsAllowIt) {
  const auto result =
      runNbody("compare " + a() + " " + b() + " --max-delta 8 --max-bad-fraction 0.001", scratch_);
  EXPECT_EQ(result.exitCode, 0) << result.out << result.err;  // 1 of 1200 pixels is under 0.1%
}

TEST_F(CompareCommand, PicturesOfDifferentSizesAreAClearError) {
  const auto diff = scratch_ / "diff.png";
  const auto result =
      runNbody("compare " + a() + " " + small() + " --diff " + diff.string(), scratch_);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(test::lineCount(result.err), 1u) << result.err;
  EXPECT_NE(result.err.find("a.png is 40 x 30 but " + small() + " is 30 x 40"), std::string::npos)
      << result.err;
  EXPECT_FALSE(std::filesystem::exists(diff));
}

TEST_F(CompareCommand, RefusesBadThresholdsAndMissingFiles) {
  for (const std::string& arguments :
       {a() + " " + b() + " --max-delta 256", a() + " " + b() + " --max-bad-fraction 2",
        a() + " " + b() + " --mean-delta -1", a() + " /nonexistent.png", a()}) {
    const auto result = runNbody("compare " + arguments, scratch_);
    EXPECT_EQ(result.exitCode, 2) << arguments << "\n" << result.err;
    EXPECT_EQ(test::lineCount(result.err), 1u) << result.err;
  }
}

}  // namespace
}  // namespace nbody
