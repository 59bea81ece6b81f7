// The window's camera path editor: keyframes are the cameras added, at the spacing asked; the
// path through them meets each one exactly; a saved file reads back (through the reader `record
// --camera-path` uses) as the same keyframes, bit for bit; a file without targets keeps keyframes
// without; bad requests and files change nothing and say why.

#include <fstream>

#include <gtest/gtest.h>

#include "app/live/camera_path_editor.h"
#include "support/cli_runner.h"

namespace nbody {
namespace {

using test::ScratchFolder;

Camera cameraAt(float yaw, float pitch, float distance, glm::vec3 target) {
  Camera camera;
  camera.yawDegrees = yaw;
  camera.pitchDegrees = pitch;
  camera.distance = distance;
  camera.target = target;
  return camera;
}

TEST(CameraPathEditor, KeyframesAreTheCamerasAddedAtTheSpacingAndThePathMeetsEach) {
  CameraPathEditor editor;
  EXPECT_FALSE(editor.path());
  editor.add(cameraAt(30.0f, 20.0f, 17.0f, glm::vec3(1.0f, 2.0f, 3.0f)), 2.5);
  editor.add(cameraAt(-120.25f, -45.0f, 0.75f, glm::vec3(-4.0f, 0.5f, 0.0f)), 2.5);
  editor.add(cameraAt(400.0f, 90.0f, 1e4f, glm::vec3(0.0f)), 0.125);
  const std::vector<CameraKeyframe> expected{
      {0.0, 30.0f, 20.0f, 17.0f, glm::vec3(1.0f, 2.0f, 3.0f)},
      {2.5, -120.25f, -45.0f, 0.75f, glm::vec3(-4.0f, 0.5f, 0.0f)},
      {2.625, 400.0f, 90.0f, 1e4f, glm::vec3(0.0f)}};
  EXPECT_EQ(editor.keyframes(), expected);
  const std::optional<CameraPath> path = editor.path();
  ASSERT_TRUE(path);
  for (const CameraKeyframe& k : expected) EXPECT_EQ(path->at(k.seconds), k) << k.seconds;
}

TEST(CameraPathEditor, RemovingAKeyframeKeepsTheOthersTimes) {
  CameraPathEditor editor;
  for (const float yaw : {0.0f, 10.0f, 20.0f})
    editor.add(cameraAt(yaw, 0.0f, 5.0f, glm::vec3(0.0f)), 1.0);
  editor.remove(1);
  ASSERT_EQ(editor.keyframes().size(), 2u);
  EXPECT_EQ(editor.keyframes()[1].seconds, 2.0);
  EXPECT_EQ(editor.keyframes()[1].yawDegrees, 20.0f);
  editor.remove(7);  // past the end: nothing
  EXPECT_EQ(editor.keyframes().size(), 2u);
  editor.add(cameraAt(30.0f, 0.0f, 5.0f, glm::vec3(0.0f)), 1.0);
  EXPECT_EQ(editor.keyframes().back().seconds, 3.0);
  editor.clear();
  EXPECT_FALSE(editor.path());
}

TEST(CameraPathEditor, ASavedPathReadsBackAsTheSameKeyframes) {
  ScratchFolder scratch("camera-path-editor-save");
  CameraPathEditor editor;
  editor.add(cameraAt(33.3f, 12.345f, 7.1f, glm::vec3(0.1f, -0.2f, 0.3f)), 1.0 / 3.0);
  editor.add(cameraAt(95.0f, -89.9f, 0.001f, glm::vec3(1e-7f, 3e5f, -2.5f)), 1.0 / 3.0);
  const auto file = scratch / "path.txt";
  editor.save(file);
  EXPECT_EQ(readCameraPathFile(file).keyframes(), editor.keyframes());
  CameraPathEditor loaded;
  loaded.load(file);
  EXPECT_EQ(loaded.keyframes(), editor.keyframes());
}

TEST(CameraPathEditor, AFileWithoutTargetsKeepsKeyframesWithout) {
  ScratchFolder scratch("camera-path-editor-no-targets");
  std::ofstream(scratch / "path.txt") << "# SECONDS YAW PITCH DISTANCE\n0 30 20 17\n4 120 10 12\n";
  CameraPathEditor editor;
  editor.load(scratch / "path.txt");
  editor.add(cameraAt(200.0f, 5.0f, 9.0f, glm::vec3(1.0f)), 2.0);
  ASSERT_EQ(editor.keyframes().size(), 3u);
  EXPECT_EQ(editor.keyframes()[2], (CameraKeyframe{6.0, 200.0f, 5.0f, 9.0f, std::nullopt}));
  EXPECT_TRUE(editor.path());
}

TEST(CameraPathEditor, BadRequestsAndFilesChangeNothingAndSayWhy) {
  ScratchFolder scratch("camera-path-editor-bad");
  CameraPathEditor editor;
  EXPECT_THROW(editor.add(Camera{}, 0.0), std::invalid_argument);
  EXPECT_THROW(editor.add(Camera{}, std::nan("")), std::invalid_argument);
  try {
    editor.save(scratch / "empty.txt");
    ADD_FAILURE() << "saved a path without keyframes";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("no keyframe"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(scratch / "empty.txt"));
  editor.add(Camera{}, 1.0);
  const std::vector<CameraKeyframe> before = editor.keyframes();
  std::ofstream(scratch / "bad.txt") << "0 30 20 17\n1 30 20 -5\n";
  try {
    editor.load(scratch / "bad.txt");
    ADD_FAILURE() << "loaded a negative distance";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((scratch / "bad.txt").string() + ":2"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(editor.keyframes(), before);
  EXPECT_ANY_THROW(editor.save(scratch / "no-such-folder" / "path.txt"));
  EXPECT_EQ(test::temporaryFilesIn(scratch.path()), std::vector<std::string>{});
}

}  // namespace
}  // namespace nbody
