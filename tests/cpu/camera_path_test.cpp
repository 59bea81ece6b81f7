// Camera paths for movies: the curve passes through every keyframe exactly, reproduces a straight
// line where the keyframes lie on one, holds before the first and after the last, keeps the
// distance above 0; a file round-trips bit for bit; a bad file is one line naming file and line.

#include <cmath>

#include <gtest/gtest.h>

#include "render/camera_path.h"

namespace nbody {
namespace {

CameraKeyframe key(double seconds, float yaw, float pitch, float distance,
                   std::optional<glm::vec3> target = std::nullopt) {
  return {seconds, yaw, pitch, distance, target};
}

TEST(CameraPath, PassesThroughEveryKeyframeAndHoldsBeyondTheEnds) {
  const CameraPath path({key(0.0, 30.0f, 20.0f, 17.0f, glm::vec3(0.0f)),
                         key(1.5, 120.0f, -10.0f, 4.0f, glm::vec3(1.0f)),
                         key(2.0, 125.0f, 60.0f, 40.0f, glm::vec3(-2.0f, 0.5f, 3.0f)),
                         key(7.25, 400.0f, 90.0f, 0.5f, glm::vec3(0.0f))});
  for (const CameraKeyframe& k : path.keyframes()) EXPECT_EQ(path.at(k.seconds), k) << k.seconds;
  EXPECT_EQ(path.at(-3.0), path.keyframes().front());
  EXPECT_EQ(path.at(100.0), path.keyframes().back());
  // Between keyframes: smooth, the distance above 0 (however far it falls), the pitch in range.
  for (double s = 0.0; s < 7.25; s += 0.01) {
    const CameraKeyframe k = path.at(s);
    EXPECT_GT(k.distance, 0.0f) << s;
    EXPECT_LE(std::abs(k.pitchDegrees), 90.0f) << s;
    const CameraKeyframe next = path.at(s + 1e-4);
    EXPECT_LT(std::abs(next.yawDegrees - k.yawDegrees), 0.1f) << s;  // no jump
  }
}

TEST(CameraPath, KeyframesOnAStraightLineGiveTheLine) {
  // Yaw and target linear in time at uneven spacing; the distance geometric (linear in its log).
  const CameraPath path({key(0.0, 0.0f, 0.0f, 1.0f, glm::vec3(0.0f)),
                         key(1.0, 10.0f, 0.0f, 2.0f, glm::vec3(1.0f)),
                         key(4.0, 40.0f, 0.0f, 16.0f, glm::vec3(4.0f))});
  for (const double s : {0.25, 0.5, 2.0, 3.3}) {
    const CameraKeyframe k = path.at(s);
    EXPECT_NEAR(k.yawDegrees, 10.0 * s, 1e-4) << s;
    EXPECT_NEAR(k.distance, std::exp2(s), 1e-4 * std::exp2(s)) << s;
    EXPECT_NEAR(k.target->y, s, 1e-5) << s;
  }
}

TEST(CameraPath, AFileRoundTripsBitForBit) {
  const CameraPath path({key(0.1, 1.0f / 3.0f, 89.99999f, 1e-3f), key(1e9, -720.5f, -90.0f, 3e7f)});
  const CameraPath back = parseCameraPath(formatCameraPath(path), "path.txt");
  EXPECT_EQ(back.keyframes(), path.keyframes());
  const CameraPath targeted({key(0.0, 0.0f, 0.0f, 1.0f, glm::vec3(0.1f, -2e-8f, 7.0f))});
  EXPECT_EQ(parseCameraPath(formatCameraPath(targeted), "t.txt").keyframes(), targeted.keyframes());
  // Comments and blank lines, any blanks between fields.
  const CameraPath read = parseCameraPath("# a path\n\n  0  30 20 17\n\t4 120\t10 12   \n", "p");
  EXPECT_EQ(read.keyframes(),
            (std::vector{key(0.0, 30.0f, 20.0f, 17.0f), key(4.0, 120.0f, 10.0f, 12.0f)}));
}

TEST(CameraPath, ABadFileIsOneLineNamingFileAndLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "path.txt: no keyframe (SECONDS YAW PITCH DISTANCE [TX TY TZ])"},
      {"# only a comment\n", "path.txt: no keyframe (SECONDS YAW PITCH DISTANCE [TX TY TZ])"},
      {"0 30 20\n", "path.txt:1: expected SECONDS YAW PITCH DISTANCE [TX TY TZ], got 3 fields"},
      {"0 30 20 17\n1 40 twenty 17\n", "path.txt:2: 'twenty' is not a number"},
      {"0 30 20 17\n0 40 20 17\n", "path.txt:2: its time 0 is not after the keyframe before's (0)"},
      {"0 30 95 17\n", "path.txt:1: its pitch must be in [-90, 90]"},
      {"0 30 20 0\n", "path.txt:1: its distance must be > 0"},
      {"0 30 20 17 0 0 0\n1 40 20 17\n", "path.txt:2: targets go on every keyframe or on none"},
      {"0 30 20 nan\n", "path.txt:1: must be finite, got nan"},
  };
  for (const auto& [text, expected] : cases) {
    try {
      parseCameraPath(text, "path.txt");
      ADD_FAILURE() << "no error for " << text;
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), expected) << text;
    }
  }
  EXPECT_THROW(CameraPath({}), std::invalid_argument);
}

}  // namespace
}  // namespace nbody
