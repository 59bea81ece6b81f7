#pragma once
// The window's keys and mouse: keys become requests in AppSettings, drags and the wheel move the
// camera. Neither acts while Dear ImGui wants the keyboard or mouse (typing into the panel,
// dragging a slider).

#include <glm/vec2.hpp>

#include "app/live/app_settings.h"
#include "render/camera.h"

struct GLFWwindow;

namespace nbody {

// Keys pressed since the last frame.
struct KeyPresses {
  bool pause = false, step = false, reset = false, screenshot = false, togglePanel = false, quit = false,
       record = false, keyframe = false;
};

// Records key presses into `keys` (which must outlive the window). Install before ImGui's GLFW
// backend, which chains to the callback it finds.
void listenForKeys(GLFWwindow* window, KeyPresses& keys);
// Turns the presses since the last frame into requests, and forgets them.
void applyKeys(KeyPresses& keys, AppSettings& settings);
// Left drag orbits, right drag pans, the wheel zooms; not while the mouse is over the panel.
void steerCamera(Camera& camera, glm::ivec2 windowSize);

}  // namespace nbody
