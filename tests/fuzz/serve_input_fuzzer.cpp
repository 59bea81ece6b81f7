// Fuzzes the reader of the messages a viewer of `nbody serve` sends (serve/input_message.h): any
// text gives either a message whose every field lies within the bounds its type states, or a
// refusal in one printable line; never both, never neither, and never an exception (libFuzzer
// reports one as a crash).

#include <cmath>
#include <cstdint>
#include <string_view>

#include "fuzz_support.h"
#include "serve/input_message.h"
#include "util/utf8_text.h"

namespace {

using nbody::fuzz::require;

template <typename... Visitors>
struct Overloaded : Visitors... {
  using Visitors::operator()...;
};
template <typename... Visitors>
Overloaded(Visitors...) -> Overloaded<Visitors...>;  // clang 14 deduces no aggregate's arguments

bool within(double value, double low, double high) {
  return std::isfinite(value) && value >= low && value <= high;
}

bool isCoordinate(double value) {
  return within(value, -nbody::kMostCoordinate, nbody::kMostCoordinate);
}

bool isAlphanumeric(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

void requireWithinBounds(const nbody::InputMessage& message) {
  using namespace nbody;
  std::visit(Overloaded{
                 [](const KeyInput& key) {
                   require(!key.code.empty() && key.code.size() <= kMostKeyCodeBytes);
                   for (const char c : key.code) require(isAlphanumeric(c));
                   require(key.key.size() <= kMostKeyBytes && isValidUtf8(key.key));
                   require(key.mods >= 0 && key.mods <= kMostMods);
                 },
                 [](const TextInput& text) {
                   require(!text.utf8.empty() && text.utf8.size() <= kMostTextBytes &&
                           isValidUtf8(text.utf8));
                 },
                 [](const ButtonInput& button) {
                   require(button.button >= 0 && button.button <= kLastButton);
                   require(isCoordinate(button.x) && isCoordinate(button.y));
                   require(button.mods >= 0 && button.mods <= kMostMods);
                 },
                 [](const MoveInput& move) {
                   require(isCoordinate(move.x) && isCoordinate(move.y));
                   require(move.buttons >= 0 && move.buttons <= kMostButtons);
                 },
                 [](const WheelInput& wheel) {
                   require(within(wheel.dx, -kMostWheelDelta, kMostWheelDelta));
                   require(within(wheel.dy, -kMostWheelDelta, kMostWheelDelta));
                   require(isCoordinate(wheel.x) && isCoordinate(wheel.y));
                 },
                 [](const ResizeInput& resize) {
                   require(resize.width >= kLeastWidth && resize.width <= kMostWidth);
                   require(resize.height >= kLeastHeight && resize.height <= kMostHeight);
                   require(within(resize.pixelRatio, kLeastPixelRatio, kMostPixelRatio));
                 },
                 [](const FrameAck& ack) { require(ack.sequence <= kMostSequence); },
                 [](const TakeControl&) {},
             },
             message);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const nbody::ParsedInput parsed = nbody::parseInputMessage(text);
  require(parsed.message.has_value() != !parsed.refusal.empty());
  if (size > nbody::kMostInputMessageBytes) require(!parsed.message);
  for (const char c : parsed.refusal) require(c >= 0x20 && c < 0x7f);
  if (parsed.message) requireWithinBounds(*parsed.message);
  return 0;
}
