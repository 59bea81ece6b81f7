#pragma once
// The messages a viewer of `nbody serve` sends: JSON text frames (docs/serve.md, "Messages"),
// read here without trusting any of them. A message is a JSON object whose "type" names it; every
// field its type lists must be there with the right JSON type and within bounds, and fields it
// does not list are ignored (a newer page may send more). Positions are in picture pixels.
//
//   {"type":"key","down":true,"code":"KeyA","key":"a","repeat":false,"mods":3}
//   {"type":"text","utf8":"é"}
//   {"type":"button","down":true,"button":0,"x":640,"y":338,"mods":0}
//   {"type":"move","x":641.5,"y":340,"buttons":1}
//   {"type":"wheel","dx":0,"dy":-120,"x":640,"y":338}
//   {"type":"resize","w":1280,"h":800,"dpr":2}
//   {"type":"ack","seq":17}
//   {"type":"take_control"}
//
// mods holds the held modifiers as bits: 1 Shift, 2 Ctrl, 4 Alt, 8 Meta. button is
// MouseEvent.button (0 main, 1 middle, 2 secondary, 3 back, 4 forward); buttons is
// MouseEvent.buttons, the held ones as bits (1 main, 2 secondary, 4 middle, 8 back, 16 forward).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace nbody {

inline constexpr std::size_t kMostInputMessageBytes = 4096;

// A key pressed or let go. `code` is KeyboardEvent.code (the key's place: 1 to 32 ASCII letters
// and digits, "KeyA", "Space", "F12"), `key` is KeyboardEvent.key (what it types: at most 32
// bytes of UTF-8, no control character).
struct KeyInput {
  bool down = false;
  std::string code;
  std::string key;
  bool repeat = false;
  int mods = 0;
};

// Typed text for a text field: 1 to 64 bytes of UTF-8, no control character.
struct TextInput {
  std::string utf8;
};

struct ButtonInput {
  bool down = false;
  int button = 0;
  double x = 0, y = 0;
  int mods = 0;
};

struct MoveInput {
  double x = 0, y = 0;
  int buttons = 0;
};

struct WheelInput {
  double dx = 0, dy = 0;
  double x = 0, y = 0;
};

// The size of the viewer's picture area in device pixels (w, h) and its device pixel ratio (dpr).
struct ResizeInput {
  int width = 0, height = 0;
  double pixelRatio = 1;
};

// The viewer has shown the frame of this sequence number (seq) and may be sent another.
struct FrameAck {
  std::uint64_t sequence = 0;
};

// The viewer asks to steer the session.
struct TakeControl {};

using InputMessage = std::variant<KeyInput, TextInput, ButtonInput, MoveInput, WheelInput,
                                  ResizeInput, FrameAck, TakeControl>;

// Bounds of the numbers, inclusive.
inline constexpr double kMostCoordinate = 100000;  // x and y, either sign
inline constexpr double kMostWheelDelta = 10000;   // dx and dy, either sign
inline constexpr int kMostMods = 15;
inline constexpr int kMostButtons = 31;
inline constexpr int kLastButton = 4;
// The viewer's picture area in device pixels: any screen (the server clamps what it draws).
inline constexpr int kLeastWidth = 64, kMostWidth = 8192;
inline constexpr int kLeastHeight = 64, kMostHeight = 8192;
inline constexpr double kLeastPixelRatio = 0.25, kMostPixelRatio = 8;
inline constexpr std::uint64_t kMostSequence =
    (std::uint64_t(1) << 53) - 1;  // exact in a JavaScript number
inline constexpr std::size_t kMostKeyCodeBytes = 32, kMostKeyBytes = 32, kMostTextBytes = 64;

// The message, or why not: one printable line that names the field at fault.
struct ParsedInput {
  std::optional<InputMessage> message;
  std::string refusal;
};

// Reads one text frame. Never throws.
ParsedInput parseInputMessage(std::string_view text);

}  // namespace nbody
