#include "app/window/served_input.h"

#include <algorithm>
#include <string_view>

#include <imgui.h>

namespace nbody {
namespace {

// The keys Dear ImGui navigates and edits text with, by KeyboardEvent.code; a key's index in
// ImGui's KeysDown is its place here.
struct NavigationKey {
  std::string_view code;
  ImGuiKey key;
};
constexpr NavigationKey kNavigationKeys[] = {
    {"Tab", ImGuiKey_Tab},
    {"ArrowLeft", ImGuiKey_LeftArrow},
    {"ArrowRight", ImGuiKey_RightArrow},
    {"ArrowUp", ImGuiKey_UpArrow},
    {"ArrowDown", ImGuiKey_DownArrow},
    {"PageUp", ImGuiKey_PageUp},
    {"PageDown", ImGuiKey_PageDown},
    {"Home", ImGuiKey_Home},
    {"End", ImGuiKey_End},
    {"Insert", ImGuiKey_Insert},
    {"Delete", ImGuiKey_Delete},
    {"Backspace", ImGuiKey_Backspace},
    {"Space", ImGuiKey_Space},
    {"Enter", ImGuiKey_Enter},
    {"Escape", ImGuiKey_Escape},
    {"NumpadEnter", ImGuiKey_KeyPadEnter},
    {"KeyA", ImGuiKey_A},
    {"KeyC", ImGuiKey_C},
    {"KeyV", ImGuiKey_V},
    {"KeyX", ImGuiKey_X},
    {"KeyY", ImGuiKey_Y},
    {"KeyZ", ImGuiKey_Z},
};

int navigationIndexOf(std::string_view code) {
  for (std::size_t i = 0; i < std::size(kNavigationKeys); ++i)
    if (kNavigationKeys[i].code == code) return int(i);
  return -1;
}

// MouseEvent.button (0 main, 1 middle, 2 secondary) as ImGui counts (0 left, 1 right, 2 middle).
int imguiButtonOf(int button) {
  constexpr int kImGuiButton[] = {0, 2, 1, 3, 4};
  return kImGuiButton[std::clamp(button, 0, 4)];
}

void setModifiers(int mods) {
  ImGuiIO& io = ImGui::GetIO();
  io.KeyShift = (mods & 1) != 0;
  io.KeyCtrl = (mods & 2) != 0;
  io.KeyAlt = (mods & 4) != 0;
  io.KeySuper = (mods & 8) != 0;
}

constexpr double kWheelPixelsPerNotch = 100.0;  // a browser's deltaY for one notch
constexpr auto kSteeringMoment = std::chrono::milliseconds(300);

}  // namespace

ServedInput::ServedInput(glm::ivec2 size) : size_(size) {
  ImGuiIO& io = ImGui::GetIO();
  for (std::size_t i = 0; i < std::size(kNavigationKeys); ++i)
    io.KeyMap[kNavigationKeys[i].key] = int(i);
}

void ServedInput::add(const std::vector<InputMessage>& messages) {
  for (const InputMessage& message : messages) waiting_.push_back(message);
  while (waiting_.size() > kMostWaitingMessages) {
    waiting_.pop_front();
    ++dropped_;
  }
}

void ServedInput::applyFrame(KeyPresses& keys, Clock::time_point now) {
  ImGuiIO& io = ImGui::GetIO();
  io.MouseWheel = io.MouseWheelH = 0.0f;  // a frame's own
  Changed changed;
  bool steered = false;
  while (!waiting_.empty() && apply(waiting_.front(), keys, changed)) {
    steered = steered || !std::holds_alternative<ResizeInput>(waiting_.front());
    waiting_.pop_front();
  }
  keys.quit = false;  // a viewer does not end the served session
  if (steered) lastSteered_ = now;
}

bool ServedInput::interactive(Clock::time_point now) const {
  return now - lastSteered_ < kSteeringMoment;
}

// False, applying nothing, where the message would change again what this frame changed.
bool ServedInput::apply(const InputMessage& message, KeyPresses& keys, Changed& changed) {
  ImGuiIO& io = ImGui::GetIO();
  if (const auto* move = std::get_if<MoveInput>(&message)) {
    setPointer(move->x, move->y);
  } else if (const auto* button = std::get_if<ButtonInput>(&message)) {
    return applyButton(*button, changed);
  } else if (const auto* wheel = std::get_if<WheelInput>(&message)) {
    setPointer(wheel->x, wheel->y);
    io.MouseWheel -= float(wheel->dy / kWheelPixelsPerNotch);
    io.MouseWheelH -= float(wheel->dx / kWheelPixelsPerNotch);
  } else if (const auto* key = std::get_if<KeyInput>(&message)) {
    return applyKey(*key, keys, changed);
  } else if (const auto* text = std::get_if<TextInput>(&message)) {
    io.AddInputCharactersUTF8(text->utf8.c_str());
  } else if (const auto* size = std::get_if<ResizeInput>(&message)) {
    resize(*size);
  }
  return true;
}

bool ServedInput::applyButton(const ButtonInput& button, Changed& changed) {
  const int index = imguiButtonOf(button.button);
  const unsigned bit = 1u << index;
  ImGuiIO& io = ImGui::GetIO();
  if (io.MouseDown[index] == button.down) return true;  // nothing changes
  if (changed.buttons & bit) return false;
  changed.buttons |= bit;
  setPointer(button.x, button.y);
  setModifiers(button.mods);
  io.MouseDown[index] = button.down;
  return true;
}

bool ServedInput::applyKey(const KeyInput& key, KeyPresses& keys, Changed& changed) {
  ImGuiIO& io = ImGui::GetIO();
  const int index = navigationIndexOf(key.code);
  if (index >= 0 && io.KeysDown[index] != key.down) {
    if (std::find(changed.keys.begin(), changed.keys.end(), index) != changed.keys.end())
      return false;
    changed.keys.push_back(index);
    io.KeysDown[index] = key.down;
  }
  setModifiers(key.mods);
  if (key.down) pressKeyByCode(keys, key.code, key.repeat);
  return true;
}

// Picture pixels as ImGui's, which are the picture's divided by the pixel ratio.
void ServedInput::setPointer(double x, double y) {
  ImGui::GetIO().MousePos = ImVec2(float(x / pixelRatio_), float(y / pixelRatio_));
}

void ServedInput::resize(const ResizeInput& resize) {
  const double scale = std::min(
      {1.0, double(kMostServedWidth) / resize.width, double(kMostServedHeight) / resize.height});
  size_ =
      glm::ivec2(std::max(1, int(resize.width * scale)), std::max(1, int(resize.height * scale)));
  pixelRatio_ = resize.pixelRatio * scale;
}

}  // namespace nbody
