#pragma once
// The window's keys and mouse: keys become requests in AppSettings, drags and the wheel move the
// camera. Neither acts while Dear ImGui wants the keyboard or mouse (typing into the panel,
// dragging a slider).

#include <optional>
#include <string_view>

#include <glm/vec2.hpp>

#include "app/live/app_settings.h"
#include "render/camera.h"

struct GLFWwindow;

namespace nbody {

// Keys pressed since the last frame.
struct KeyPresses {
  bool pause = false, step = false, reset = false, screenshot = false, togglePanel = false,
       quit = false, record = false, keyframe = false;
};

// Records key presses into `keys` (which must outlive the window). Install before ImGui's GLFW
// backend, which chains to the callback it finds.
void listenForKeys(GLFWwindow* window, KeyPresses& keys);
// A key pressed in a browser (KeyboardEvent.code: "Space", "KeyN"), as the window's key would be.
void pressKeyByCode(KeyPresses& keys, std::string_view code, bool repeat);
// Turns the presses since the last frame into requests, and forgets them.
void applyKeys(KeyPresses& keys, AppSettings& settings);
// Left drag orbits (not with Shift, which drags a selection box), right drag pans, the wheel zooms;
// not while the mouse is over the panel.
void steerCamera(Camera& camera, glm::ivec2 windowSize);

// A left click on the picture (pressed and released within a few pixels) or a Shift-drag of the
// left button: the bodies to select there, in framebuffer pixels from the top left.
struct PickRequest {
  glm::vec2 corner{0.0f}, otherCorner{0.0f};  // the same for a click
  bool add = false;                           // Ctrl held: added to the selection
  float pixelScale = 1.0f;  // framebuffer pixels a window pixel (2 on a HiDPI screen)
  bool box() const { return corner != otherCorner; }
};
// The request of the mouse button released this frame, if any; while Shift-dragging it outlines the
// box. Not over the panel.
std::optional<PickRequest> takePickRequest();

}  // namespace nbody
