// The controlling viewer's messages as Dear ImGui's input and the window's keys
// (app/window/served_input.h), checked against ImGui's own IO with a context of its own.

#include <gtest/gtest.h>
#include <imgui.h>

#include "app/window/served_input.h"

namespace nbody {
namespace {

class ServedInputTest : public ::testing::Test {
 protected:
  ServedInputTest() { ImGui::CreateContext(); }
  ~ServedInputTest() override { ImGui::DestroyContext(); }

  ImGuiIO& io() { return ImGui::GetIO(); }
  KeyPresses frame(ServedInput& input) {
    KeyPresses keys;
    input.applyFrame(keys, ServedInput::Clock::now());
    return keys;
  }
};

TEST_F(ServedInputTest, AClickInOneBatchTakesTwoFramesSoImGuiSeesThePressAndTheRelease) {
  ServedInput input({1280, 800});
  input.add({ButtonInput{true, 0, 100, 50, 0}, ButtonInput{false, 0, 100, 50, 0}});
  frame(input);
  EXPECT_TRUE(io().MouseDown[0]);
  EXPECT_EQ(io().MousePos.x, 100.0f);
  EXPECT_EQ(io().MousePos.y, 50.0f);
  EXPECT_EQ(input.waiting(), 1u);
  frame(input);
  EXPECT_FALSE(io().MouseDown[0]);
  EXPECT_EQ(input.waiting(), 0u);
}

TEST_F(ServedInputTest, TheBrowsersSecondaryButtonIsImGuisRightAndTheMiddleItsThird) {
  ServedInput input({1280, 800});
  input.add({ButtonInput{true, 2, 1, 1, 0}, ButtonInput{true, 1, 1, 1, 0}});
  frame(input);
  EXPECT_FALSE(io().MouseDown[0]);
  EXPECT_TRUE(io().MouseDown[1]);
  EXPECT_TRUE(io().MouseDown[2]);
}

TEST_F(ServedInputTest, PositionsArePicturePixelsOverThePixelRatio) {
  ServedInput input({1280, 800});
  input.add({ResizeInput{2000, 1000, 2.0}, MoveInput{400, 300, 0}});
  frame(input);
  EXPECT_EQ(input.pictureSize(), glm::ivec2(2000, 1000));
  EXPECT_EQ(io().MousePos.x, 200.0f);
  EXPECT_EQ(io().MousePos.y, 150.0f);
}

TEST_F(ServedInputTest, APictureBeyondTheLargestIsScaledDownWithItsAspect) {
  ServedInput input({1280, 800});
  input.add({ResizeInput{7680, 4000, 2.0}});
  frame(input);
  EXPECT_EQ(input.pictureSize(), glm::ivec2(kMostServedWidth, 2000));
  EXPECT_DOUBLE_EQ(input.pixelRatio(), 1.0);
}

TEST_F(ServedInputTest, AWheelNotchDownIsMinusOneAndLastsOneFrame) {
  ServedInput input({1280, 800});
  input.add({WheelInput{0, 100, 10, 10}, WheelInput{0, 100, 10, 10}});
  frame(input);
  EXPECT_FLOAT_EQ(io().MouseWheel, -2.0f);
  frame(input);
  EXPECT_FLOAT_EQ(io().MouseWheel, 0.0f);
}

TEST_F(ServedInputTest, ShortcutKeysPressAsTheWindowsDoButEscapeEndsNothing) {
  ServedInput input({1280, 800});
  input.add({KeyInput{true, "Space", " ", false, 0}, KeyInput{true, "KeyP", "p", false, 0},
             KeyInput{true, "Escape", "Escape", false, 0}});
  const KeyPresses keys = frame(input);
  EXPECT_TRUE(keys.pause);
  EXPECT_TRUE(keys.screenshot);
  EXPECT_FALSE(keys.quit);
  EXPECT_FALSE(keys.step);
}

TEST_F(ServedInputTest, OnlyNRepeats) {
  ServedInput input({1280, 800});
  input.add({KeyInput{true, "KeyN", "n", true, 0}, KeyInput{true, "Space", " ", true, 0}});
  const KeyPresses keys = frame(input);
  EXPECT_TRUE(keys.step);
  EXPECT_FALSE(keys.pause);
}

TEST_F(ServedInputTest, NavigationKeysAndModifiersReachImGui) {
  ServedInput input({1280, 800});
  input.add({KeyInput{true, "Tab", "Tab", false, 1 | 2}});
  frame(input);
  EXPECT_TRUE(io().KeysDown[io().KeyMap[ImGuiKey_Tab]]);
  EXPECT_TRUE(io().KeyShift);
  EXPECT_TRUE(io().KeyCtrl);
  EXPECT_FALSE(io().KeyAlt);
}

TEST_F(ServedInputTest, SteeringMakesTheFramesInteractiveForAMoment) {
  ServedInput input({1280, 800});
  const auto now = ServedInput::Clock::now();
  KeyPresses keys;
  input.add({ResizeInput{640, 400, 1.0}});
  input.applyFrame(keys, now);
  EXPECT_FALSE(input.interactive(now));  // a resize is no steering
  input.add({MoveInput{1, 1, 1}});
  input.applyFrame(keys, now);
  EXPECT_TRUE(input.interactive(now + std::chrono::milliseconds(200)));
  EXPECT_FALSE(input.interactive(now + std::chrono::milliseconds(400)));
}

TEST_F(ServedInputTest, WaitingMessagesAreBoundedDroppingTheOldest) {
  ServedInput input({1280, 800});
  std::vector<InputMessage> clicks;
  for (std::size_t i = 0; i < kMostWaitingMessages + 10; ++i)
    clicks.push_back(ButtonInput{i % 2 == 0, 0, 1, 1, 0});
  input.add(clicks);
  EXPECT_EQ(input.waiting(), kMostWaitingMessages);
  EXPECT_EQ(input.dropped(), 10u);
}

}  // namespace
}  // namespace nbody
