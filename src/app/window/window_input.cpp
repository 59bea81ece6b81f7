#include "app/window/window_input.h"

#include <cmath>
#include <string_view>

#include <glad/gl.h>
// glad first: GLFW must not pull in a GL header of its own.
#include <GLFW/glfw3.h>
#include <imgui.h>

namespace nbody {
namespace {

constexpr float kClickPixels = 3.0f;  // a press and release this close is a click, not a drag

// The shortcut keys, by GLFW's key and by the browser's KeyboardEvent.code.
struct ShortcutKey {
  int glfwKey;
  std::string_view browserCode;
  bool KeyPresses::*pressed;
};
constexpr ShortcutKey kShortcuts[] = {
    {GLFW_KEY_SPACE, "Space", &KeyPresses::pause},  {GLFW_KEY_N, "KeyN", &KeyPresses::step},
    {GLFW_KEY_R, "KeyR", &KeyPresses::reset},       {GLFW_KEY_P, "KeyP", &KeyPresses::screenshot},
    {GLFW_KEY_H, "KeyH", &KeyPresses::togglePanel}, {GLFW_KEY_M, "KeyM", &KeyPresses::record},
    {GLFW_KEY_K, "KeyK", &KeyPresses::keyframe},    {GLFW_KEY_ESCAPE, "Escape", &KeyPresses::quit},
};

// Holding N keeps stepping; no other key repeats.
void press(KeyPresses& keys, const ShortcutKey& shortcut, bool repeat) {
  if (ImGui::GetIO().WantCaptureKeyboard) return;  // typing into the panel
  if (repeat && shortcut.pressed != &KeyPresses::step) return;
  keys.*shortcut.pressed = true;
}

void onKey(GLFWwindow* window, int key, int, int action, int) {
  if (action == GLFW_RELEASE) return;
  auto* keys = static_cast<KeyPresses*>(glfwGetWindowUserPointer(window));
  if (!keys) return;
  for (const ShortcutKey& shortcut : kShortcuts)
    if (shortcut.glfwKey == key) press(*keys, shortcut, action == GLFW_REPEAT);
}

}  // namespace

void pressKeyByCode(KeyPresses& keys, std::string_view code, bool repeat) {
  for (const ShortcutKey& shortcut : kShortcuts)
    if (shortcut.browserCode == code) press(keys, shortcut, repeat);
}

void listenForKeys(GLFWwindow* window, KeyPresses& keys) {
  glfwSetWindowUserPointer(window, &keys);
  glfwSetKeyCallback(window, onKey);
}

void applyKeys(KeyPresses& keys, AppSettings& settings) {
  if (keys.pause) settings.paused = !settings.paused;
  if (keys.step) settings.requests.ask(Request::SingleStep);
  if (keys.reset) settings.requests.ask(Request::Reset);
  if (keys.screenshot) settings.requests.ask(Request::Screenshot);
  if (keys.togglePanel) settings.showPanel = !settings.showPanel;
  if (keys.quit) settings.requests.ask(Request::Quit);
  if (keys.record) settings.requests.ask(Request::ToggleRecording);
  if (keys.keyframe) settings.requests.ask(Request::AddKeyframe);
  keys = {};
}

void steerCamera(Camera& camera, glm::ivec2 windowSize) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantCaptureMouse) return;
  const glm::vec2 delta(io.MouseDelta.x, io.MouseDelta.y);
  if (io.MouseDown[0] && !io.KeyShift) camera.orbit(-0.3f * delta.x, 0.3f * delta.y);
  if (io.MouseDown[1] && windowSize.y > 0)
    camera.pan(glm::vec2(-delta.x, delta.y) / float(windowSize.y));
  if (io.MouseWheel != 0.0f) camera.zoom(std::pow(1.15f, io.MouseWheel));
}

std::optional<PickRequest> takePickRequest() {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantCaptureMouse) return std::nullopt;
  const bool dragged = io.MouseDragMaxDistanceSqr[0] > kClickPixels * kClickPixels;
  if (io.MouseDown[0] && io.KeyShift && dragged)
    ImGui::GetForegroundDrawList()->AddRect(io.MouseClickedPos[0], io.MousePos,
                                            IM_COL32(90, 220, 255, 255));
  if (!io.MouseReleased[0] || (dragged && !io.KeyShift))
    return std::nullopt;  // a drag that orbited
  const glm::vec2 scale(io.DisplayFramebufferScale.x, io.DisplayFramebufferScale.y);
  const glm::vec2 released = glm::vec2(io.MousePos.x, io.MousePos.y) * scale;
  const glm::vec2 pressed =
      dragged ? glm::vec2(io.MouseClickedPos[0].x, io.MouseClickedPos[0].y) * scale : released;
  return PickRequest{pressed, released, io.KeyCtrl, scale.y};
}

}  // namespace nbody
