#pragma once
// The controlling viewer's messages (serve/input_message.h) as the window's input: the pointer,
// buttons, wheel, keys and text go into Dear ImGui's IO, the shortcut keys into KeyPresses, and a
// resize sets the picture's size. Dear ImGui 1.86 reads the state of a button or key once per
// frame, so a press and its release in one frame would be lost: a frame takes the messages in
// order up to the first that would change again what this frame changed, and the rest wait for
// the next frame.

#include <chrono>
#include <cstddef>
#include <deque>
#include <vector>

#include <glm/vec2.hpp>

#include "app/window/window_input.h"
#include "serve/input_message.h"

namespace nbody {

// The picture's largest sides: a viewer asking for more gets this, scaled down to fit.
inline constexpr int kMostServedWidth = 3840, kMostServedHeight = 2400;
// Messages waiting for a later frame; beyond, the oldest are dropped.
inline constexpr std::size_t kMostWaitingMessages = 1024;

class ServedInput {
 public:
  using Clock = std::chrono::steady_clock;

  // Sets Dear ImGui's key map (the current ImGui context's); `size` is the picture's size until a
  // viewer asks for another.
  explicit ServedInput(glm::ivec2 size);

  void add(const std::vector<InputMessage>& messages);
  // Applies the messages due this frame to ImGui's IO and `keys`. The Escape key, which ends the
  // window, does not end a served session.
  void applyFrame(KeyPresses& keys, Clock::time_point now);

  glm::ivec2 pictureSize() const { return size_; }
  double pixelRatio() const { return pixelRatio_; }
  // Whether the viewer steered in the last 300 ms (the frames are sent coarser then).
  bool interactive(Clock::time_point now) const;
  std::size_t waiting() const { return waiting_.size(); }
  std::size_t dropped() const { return dropped_; }

 private:
  // What one frame changed: ImGui's mouse buttons and key indices.
  struct Changed {
    unsigned buttons = 0;
    std::vector<int> keys;
  };
  bool apply(const InputMessage& message, KeyPresses& keys, Changed& changed);
  bool applyButton(const ButtonInput& button, Changed& changed);
  bool applyKey(const KeyInput& key, KeyPresses& keys, Changed& changed);
  void setPointer(double x, double y);
  void resize(const ResizeInput& resize);

  std::deque<InputMessage> waiting_;
  std::size_t dropped_ = 0;
  glm::ivec2 size_;
  double pixelRatio_ = 1.0;
  Clock::time_point lastSteered_{};
};

}  // namespace nbody
