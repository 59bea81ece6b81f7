// The encoder of `nbody serve` (serve/jpeg_compressor.h, serve/frame_encoder.h): its JPEGs are
// read back by an independent decoder (stb_image) and compared with the picture they came from,
// and its thread is driven by the test: a producer faster than the encoder keeps only the latest
// picture, an unchanged picture is sent once as a still frame and then not again, and stopping
// with a picture waiting does not wait for it. No timing is asserted: the test waits on
// conditions, with generous limits for slow machines.

#include <gtest/gtest.h>
#include <stb_image.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "serve/frame_encoder.h"
#include "serve/jpeg_compressor.h"
#include "support/cli_runner.h"

namespace nbody {
namespace {

struct Rgb {
  int r = 0, g = 0, b = 0;
};

// A picture as OpenGL reads it back (rows bottom-up), written and read as it is seen: row 0 at
// the top.
struct Picture {
  int width = 0, height = 0;
  std::vector<std::uint8_t> bottomUpRgba;

  Picture(int w, int h) : width(w), height(h), bottomUpRgba(std::size_t(w) * h * 4, 255) {}
  void set(int x, int rowFromTop, Rgb colour) {
    std::uint8_t* pixel = &bottomUpRgba[(std::size_t(height - 1 - rowFromTop) * width + x) * 4];
    pixel[0] = std::uint8_t(colour.r);
    pixel[1] = std::uint8_t(colour.g);
    pixel[2] = std::uint8_t(colour.b);
  }
  RgbaPictureView view() const { return {bottomUpRgba, width, height}; }
};

Picture smoothGradient(int width, int height) {
  Picture picture(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      picture.set(
          x, y,
          {255 * x / (width - 1), 255 * y / (height - 1), 64 + 128 * (x + y) / (width + height)});
  return picture;
}

// Detail at every scale, the colour of `seed`: each seed gives a different picture.
Picture texturedPicture(int width, int height, int seed = 0) {
  Picture picture(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const int checker = ((x / 4 + y / 4) % 2) * 90;
      picture.set(x, y, {(x * 7 + y * 3 + seed) % 256, checker + (x * y) % 97, (seed * 37) % 256});
    }
  return picture;
}

// What stb_image reads: rows top-down, RGBA (alpha 255: JPEG has none).
struct Decoded {
  int width = 0, height = 0;
  std::vector<std::uint8_t> topDownRgba;
  Rgb at(int x, int rowFromTop) const {
    const std::uint8_t* pixel = &topDownRgba[(std::size_t(rowFromTop) * width + x) * 4];
    return {pixel[0], pixel[1], pixel[2]};
  }
};

Decoded decode(const std::vector<std::uint8_t>& jpeg) {
  Decoded decoded;
  int channels = 0;
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
      stbi_load_from_memory(jpeg.data(), int(jpeg.size()), &decoded.width, &decoded.height,
                            &channels, 4),
      stbi_image_free);
  if (!pixels) throw std::runtime_error(std::string("stb_image: ") + stbi_failure_reason());
  decoded.topDownRgba.assign(pixels.get(),
                             pixels.get() + std::size_t(decoded.width) * decoded.height * 4);
  return decoded;
}

Rgb sourceAt(const Picture& picture, int x, int rowFromTop) {
  const std::uint8_t* pixel =
      &picture.bottomUpRgba[(std::size_t(picture.height - 1 - rowFromTop) * picture.width + x) * 4];
  return {pixel[0], pixel[1], pixel[2]};
}

// Peak signal-to-noise ratio over the three colour channels, in dB.
double psnr(const Picture& source, const Decoded& decoded) {
  double squaredError = 0;
  for (int y = 0; y < source.height; ++y)
    for (int x = 0; x < source.width; ++x) {
      const Rgb a = sourceAt(source, x, y), b = decoded.at(x, y);
      squaredError +=
          double((a.r - b.r) * (a.r - b.r) + (a.g - b.g) * (a.g - b.g) + (a.b - b.b) * (a.b - b.b));
    }
  const double meanSquaredError = squaredError / (3.0 * source.width * source.height);
  return 10 * std::log10(255.0 * 255.0 / meanSquaredError);
}

TEST(ServeJpeg, DecodesToTheSameSizeTheRightWayUp) {
  Picture picture(64, 48);
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) picture.set(x, y, y < 24 ? Rgb{20, 40, 230} : Rgb{230, 30, 20});
  const std::vector<std::uint8_t> jpeg = encodeJpeg(picture.view(), 90);
  ASSERT_GE(jpeg.size(), 4u);
  EXPECT_EQ(jpeg[0], 0xff);  // SOI ... EOI: a whole JPEG file
  EXPECT_EQ(jpeg[1], 0xd8);
  EXPECT_EQ(jpeg[jpeg.size() - 2], 0xff);
  EXPECT_EQ(jpeg[jpeg.size() - 1], 0xd9);
  const Decoded decoded = decode(jpeg);
  ASSERT_EQ(decoded.width, 64);
  ASSERT_EQ(decoded.height, 48);
  const Rgb top = decoded.at(32, 8), bottom = decoded.at(32, 40);
  EXPECT_GT(top.b, 180) << "the top half is blue in the picture";
  EXPECT_LT(top.r, 80);
  EXPECT_GT(bottom.r, 180) << "the bottom half is red in the picture";
  EXPECT_LT(bottom.b, 80);
}

TEST(ServeJpeg, ASmoothGradientComesBackClose) {
  const Picture picture = smoothGradient(320, 200);
  const double atStill = psnr(picture, decode(encodeJpeg(picture.view(), 90)));
  const double atInteractive = psnr(picture, decode(encodeJpeg(picture.view(), 60)));
  // libjpeg-turbo 2.1 gives 49 and 45 dB; a picture read with the wrong rows, channels or
  // subsampling falls far below.
  EXPECT_GE(atStill, 40.0);
  EXPECT_GE(atInteractive, 35.0);
  EXPECT_GE(atStill, atInteractive);
}

TEST(ServeJpeg, HigherQualityGivesMoreBytes) {
  const Picture picture = texturedPicture(256, 160);
  const std::size_t at30 = encodeJpeg(picture.view(), 30).size();
  const std::size_t at60 = encodeJpeg(picture.view(), 60).size();
  const std::size_t at90 = encodeJpeg(picture.view(), 90).size();
  EXPECT_LT(at30, at60);
  EXPECT_LT(at60, at90);
}

TEST(ServeJpeg, OneCompressorEncodesPicturesOfChangingSizes) {
  JpegCompressor compressor;
  const std::array<std::pair<int, int>, 4> sizes{{{320, 200}, {17, 9}, {1, 1}, {333, 211}}};
  for (const auto& [width, height] : sizes) {
    const Picture picture = texturedPicture(width, height);
    const std::vector<std::uint8_t> jpeg = compressor.compress(picture.view(), 75);
    EXPECT_EQ(jpeg, encodeJpeg(picture.view(), 75)) << "the same bytes as a fresh compressor's";
    const Decoded decoded = decode(jpeg);
    EXPECT_EQ(decoded.width, width);
    EXPECT_EQ(decoded.height, height);
  }
}

TEST(ServeJpeg, RefusesWhatItCannotEncode) {
  const Picture picture = texturedPicture(8, 8);
  EXPECT_THROW(encodeJpeg(picture.view(), 0), std::invalid_argument);
  EXPECT_THROW(encodeJpeg(picture.view(), 101), std::invalid_argument);
  EXPECT_THROW(encodeJpeg({picture.bottomUpRgba, 8, 7}, 90), std::invalid_argument);
  EXPECT_THROW(encodeJpeg({{}, 0, 8}, 90), std::invalid_argument);
  // TurboJPEG's own refusal: wider than a JPEG may be.
  const std::vector<std::uint8_t> tooWide(std::size_t(kMostJpegSide + 1) * 4, 0);
  try {
    encodeJpeg({tooWide, kMostJpegSide + 1, 1}, 90);
    ADD_FAILURE() << "a picture wider than " << kMostJpegSide << " pixels was encoded";
  } catch (const std::runtime_error& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("65500"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

// Holds the encoder thread in its published callback until opened.
class Gate {
 public:
  void waitHere() {
    std::unique_lock lock(mutex_);
    ++arrivals_;
    changed_.notify_all();
    changed_.wait(lock, [this] { return open_; });
  }
  bool waitForArrival() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(60), [this] { return arrivals_ > 0; });
  }
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int arrivals_ = 0;
  bool open_ = false;
};

// An encoder on a board, with a clock that ticks a second at each reading and a record of every
// frame published, taken in the published callback (where the board's latest is the frame just
// published: the encoder is its only publisher).
class ServeEncoder : public ::testing::Test {
 protected:
  FrameEncoder::Clock clock() {
    return [this] { return 1000.0 + double(clockReadings_++); };
  }
  FrameEncoder::PublishedCallback recorder(Gate* gate = nullptr) {
    return [this, gate] {
      {
        std::lock_guard lock(mutex_);
        published_.push_back(board_.latest());
      }
      if (gate) gate->waitHere();
    };
  }
  std::vector<std::shared_ptr<const EncodedFrame>> published() {
    std::lock_guard lock(mutex_);
    return published_;
  }
  // Waits until every picture handed to `encoder` has been dealt with.
  static bool settled(const FrameEncoder& encoder) {
    return test::waitUntil([&] {
      const FrameEncoderCounters c = encoder.counters();
      return c.picturesReplaced + c.picturesUnchanged + c.framesPublished + c.encodingsFailed ==
             c.picturesHanded;
    });
  }
  // Hands `picture` over and waits until the encoder has dealt with it.
  static void offerAndWait(FrameEncoder& encoder, const Picture& picture, bool interactive) {
    ASSERT_TRUE(encoder.offer(picture.view(), interactive));
    ASSERT_TRUE(settled(encoder)) << "the encoder did not take the picture";
  }

  ViewerBoard board_;
  std::atomic<int> clockReadings_{0};
  std::mutex mutex_;
  std::vector<std::shared_ptr<const EncodedFrame>> published_;
};

TEST_F(ServeEncoder, SendsEachChangeAndOneStillFrameOnceTheViewSettles) {
  const Picture first = texturedPicture(96, 64, 1), second = texturedPicture(96, 64, 2);
  FrameEncoder encoder(board_, clock(), recorder());
  offerAndWait(encoder, first, /*interactive=*/true);
  offerAndWait(encoder, first, true);   // the user steers, nothing moves: nothing to send
  offerAndWait(encoder, first, false);  // settled: the still frame
  for (int k = 0; k < 5; ++k) offerAndWait(encoder, first, false);
  offerAndWait(encoder, second, false);  // the simulation moved it
  offerAndWait(encoder, second, false);  // settled again

  const auto frames = published();
  ASSERT_EQ(frames.size(), 4u);
  EXPECT_EQ(frames[0]->jpeg, encodeJpeg(first.view(), 60));
  EXPECT_FALSE(frames[0]->still);
  EXPECT_EQ(frames[1]->jpeg, encodeJpeg(first.view(), 90));
  EXPECT_TRUE(frames[1]->still);
  EXPECT_EQ(frames[2]->jpeg, encodeJpeg(second.view(), 90));
  EXPECT_FALSE(frames[2]->still);
  EXPECT_EQ(frames[3]->jpeg, frames[2]->jpeg);
  EXPECT_TRUE(frames[3]->still);
  for (std::size_t k = 0; k < frames.size(); ++k) {
    EXPECT_EQ(frames[k]->sequence, k + 1);
    EXPECT_EQ(frames[k]->serverTime, 1000.0 + double(k));
    EXPECT_EQ(frames[k]->width, 96);
    EXPECT_EQ(frames[k]->height, 64);
  }
  const FrameEncoderCounters counters = encoder.counters();
  EXPECT_EQ(counters.picturesHanded, 10u);
  EXPECT_EQ(counters.picturesUnchanged, 6u);
  EXPECT_EQ(counters.framesPublished, 4u);
  EXPECT_EQ(counters.framesEncoded, 3u) << "the last still frame reuses the bytes before it";
  EXPECT_EQ(counters.picturesReplaced, 0u);
  EXPECT_GT(counters.meanEncodeMilliseconds, 0.0);
}

TEST_F(ServeEncoder, TakesItsQualitiesFromTheSettings) {
  const Picture first = texturedPicture(64, 40, 3), second = texturedPicture(64, 40, 4);
  FrameEncoder encoder(board_, clock(), recorder(), {.interactiveQuality = 35, .stillQuality = 75});
  offerAndWait(encoder, first, true);
  offerAndWait(encoder, second, false);
  const auto frames = published();
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0]->jpeg, encodeJpeg(first.view(), 35));
  EXPECT_EQ(frames[1]->jpeg, encodeJpeg(second.view(), 75));
}

TEST_F(ServeEncoder, RefusesSettingsAndPicturesItCannotUse) {
  EXPECT_THROW(FrameEncoder(board_, clock(), {}, {.interactiveQuality = 0}), std::invalid_argument);
  EXPECT_THROW(FrameEncoder(board_, clock(), {}, {.stillQuality = 101}), std::invalid_argument);
  EXPECT_THROW(FrameEncoder(board_, FrameEncoder::Clock{}), std::invalid_argument);
  FrameEncoder encoder(board_, clock());
  const Picture picture = texturedPicture(8, 8);
  EXPECT_THROW(encoder.offer({picture.bottomUpRgba, 8, 9}, false), std::invalid_argument);
  const std::vector<std::uint8_t> tooWide(std::size_t(kMostJpegSide + 1) * 4, 0);
  EXPECT_THROW(encoder.offer({tooWide, kMostJpegSide + 1, 1}, false), std::invalid_argument);
  EXPECT_EQ(encoder.counters().picturesHanded, 0u);
}

TEST_F(ServeEncoder, ContinuesTheSequenceOfTheBoard) {
  auto earlier = std::make_shared<EncodedFrame>();
  earlier->sequence = 41;
  board_.publish(earlier);
  FrameEncoder encoder(board_, clock(), recorder());
  offerAndWait(encoder, texturedPicture(16, 16), false);
  ASSERT_EQ(published().size(), 1u);
  EXPECT_EQ(published()[0]->sequence, 42u);
  EXPECT_EQ(board_.latest()->sequence, 42u);
}

// The encoder is held after its first frame while the producer hands 200 more pictures: each
// replaces the one waiting, the buffers do not grow, and the last picture is the one encoded.
TEST_F(ServeEncoder, AFastProducerAndASlowEncoderKeepOnlyTheLatestPicture) {
  Gate gate;
  FrameEncoder encoder(board_, clock(), recorder(&gate));
  const std::size_t pictureBytes = texturedPicture(128, 80).bottomUpRgba.size();
  ASSERT_TRUE(encoder.offer(texturedPicture(128, 80, 0).view(), false));
  ASSERT_TRUE(gate.waitForArrival());
  Picture latest = texturedPicture(128, 80, 0);
  for (int k = 1; k <= 200; ++k) {
    latest = texturedPicture(128, 80, k);
    ASSERT_TRUE(encoder.offer(latest.view(), k % 2 == 1));  // the last not interactive
  }
  EXPECT_EQ(encoder.counters().picturesReplaced, 199u);
  EXPECT_LE(encoder.counters().pictureBufferBytes, 3 * pictureBytes) << "three buffers go round";
  gate.open();
  ASSERT_TRUE(settled(encoder));

  const auto frames = published();
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[1]->jpeg, encodeJpeg(latest.view(), 90)) << "latest wins";
  EXPECT_LT(frames[0]->sequence, frames[1]->sequence);
  const FrameEncoderCounters counters = encoder.counters();
  EXPECT_EQ(counters.picturesHanded, 201u);
  EXPECT_EQ(counters.framesEncoded, 2u);
}

// A producer that never waits, changing pictures every time: whatever the encoder keeps up with,
// the frames' sequences increase and every picture handed is accounted for.
TEST_F(ServeEncoder, SequencesIncreaseWhateverThePace) {
  FrameEncoder encoder(board_, clock(), recorder());
  std::vector<Picture> pictures;
  for (int k = 0; k < 8; ++k) pictures.push_back(texturedPicture(160, 100, k));
  for (int k = 0; k < 400; ++k) ASSERT_TRUE(encoder.offer(pictures[k % 8].view(), k % 3 == 0));
  ASSERT_TRUE(settled(encoder));

  const auto frames = published();
  ASSERT_FALSE(frames.empty());
  for (std::size_t k = 1; k < frames.size(); ++k)
    EXPECT_LT(frames[k - 1]->sequence, frames[k]->sequence) << "frame " << k;
  EXPECT_EQ(board_.latest(), frames.back());
  const FrameEncoderCounters counters = encoder.counters();
  EXPECT_EQ(counters.framesPublished, frames.size());
  EXPECT_EQ(counters.picturesHanded, 400u);
  EXPECT_LE(counters.pictureBufferBytes, 3 * pictures[0].bottomUpRgba.size());
}

// Stopping while a picture waits drops it: the encoder finishes the frame under way (held here in
// its callback until the stop has begun) and ends without encoding the one waiting.
TEST_F(ServeEncoder, StoppingWithAPictureWaitingDropsIt) {
  Gate gate;
  FrameEncoder encoder(board_, clock(), recorder(&gate));
  const Picture first = texturedPicture(64, 64, 1), second = texturedPicture(64, 64, 2);
  ASSERT_TRUE(encoder.offer(first.view(), false));
  ASSERT_TRUE(gate.waitForArrival());
  ASSERT_TRUE(encoder.offer(second.view(), false));
  auto stopped = std::async(std::launch::async, [&] { encoder.stop(); });
  // offer() refuses once the stop has begun; until then each offer keeps a picture waiting.
  ASSERT_TRUE(test::waitUntil([&] { return !encoder.offer(second.view(), false); }));
  gate.open();
  ASSERT_EQ(stopped.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  EXPECT_EQ(encoder.counters().framesPublished, 1u);
  EXPECT_EQ(published().size(), 1u);
  EXPECT_FALSE(encoder.offer(first.view(), false));
  encoder.stop();  // again: nothing left to do
}

TEST_F(ServeEncoder, DestroyingAnEncoderReturns) {
  auto stopped = std::async(std::launch::async, [&] {
    FrameEncoder encoder(board_, clock(), recorder());
    encoder.offer(texturedPicture(32, 32).view(), true);
  });
  EXPECT_EQ(stopped.wait_for(std::chrono::seconds(60)), std::future_status::ready);
}

}  // namespace
}  // namespace nbody
