#include "serve/input_message.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/named_table.h"
#include "util/number_text.h"
#include "util/printable_text.h"
#include "util/utf8_text.h"

namespace nbody {
namespace {

using Json = nlohmann::json;

// The longest refusal, in bytes of the text it is made from.
constexpr std::size_t kMostRefusalBytes = 200;

// C0 (below U+0020), DEL and C1 (U+0080..U+009F, C2 80..C2 9F in UTF-8): no key or typed text
// holds one, and a panel's text field must not take one.
bool holdsAControlCharacter(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte == 0x7f) return true;
    if (byte == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9f)
      return true;
  }
  return false;
}

// Reads the fields of one message of type `type`. The first refusal is kept, and every read after
// it gives a default value without looking, so that a message is built in one expression (whose
// fields braced initialisation reads in order) and checked once.
class Fields {
 public:
  Fields(const Json& object, std::string_view type) : object_(object), type_(type) {}
  const std::string& refusal() const { return refusal_; }

  bool flag(const char* name) {
    const Json* value = find(name, "true or false", [](const Json& v) { return v.is_boolean(); });
    return value && value->get<bool>();
  }

  // A finite number in [-most, most].
  double coordinate(const char* name, double most) { return number(name, -most, most); }

  double number(const char* name, double low, double high) {
    const Json* value = find(name, "a number", [](const Json& v) { return v.is_number(); });
    const double read = value ? value->get<double>() : low;
    if (value && !std::isfinite(read)) refuse(name, "must be finite");
    if (value && !(read >= low && read <= high))
      refuse(name, "must be in [" + shortNumber(low) + ", " + shortNumber(high) + "], got " +
                       value->dump());
    return read;
  }

  // A JSON integer in [low, high] (a number written with a fraction or exponent is refused).
  template <typename T>
  T whole(const char* name, T low, T high) {
    const Json* value =
        find(name, "a whole number", [](const Json& v) { return v.is_number_integer(); });
    if (!value) return low;
    // nlohmann holds a non-negative integer as unsigned and a negative one as signed.
    const auto inBounds = [&](auto read) {
      return std::cmp_greater_equal(read, low) && std::cmp_less_equal(read, high);
    };
    const bool inRange = value->is_number_unsigned() ? inBounds(value->get<std::uint64_t>())
                                                     : inBounds(value->get<std::int64_t>());
    if (!inRange) {
      refuse(name, "must be a whole number in [" + std::to_string(low) + ", " +
                       std::to_string(high) + "], got " + value->dump());
      return low;
    }
    return value->get<T>();
  }

  // leastBytes to mostBytes of well-formed UTF-8.
  std::string text(const char* name, std::size_t leastBytes, std::size_t mostBytes) {
    const Json* value = find(name, "a string", [](const Json& v) { return v.is_string(); });
    if (!value) return {};
    const auto& string = value->get_ref<const std::string&>();
    if (string.size() < leastBytes)
      refuse(name, string.empty() ? "must not be empty"
                                  : "is shorter than " + std::to_string(leastBytes) + " bytes");
    if (string.size() > mostBytes)
      refuse(name, "is " + std::to_string(string.size()) + " bytes, more than " +
                       std::to_string(mostBytes));
    if (!isValidUtf8(string)) refuse(name, "is not valid UTF-8");
    if (holdsAControlCharacter(string)) refuse(name, "holds a control character");
    return refusal_.empty() ? string : std::string();
  }

  // KeyboardEvent.code: 1 to kMostKeyCodeBytes ASCII letters and digits.
  std::string keyCode(const char* name) {
    std::string code = text(name, 1, kMostKeyCodeBytes);
    const auto alphanumeric = [](char c) {
      return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
    };
    if (!std::all_of(code.begin(), code.end(), alphanumeric))
      refuse(name, "must be ASCII letters and digits only");
    return refusal_.empty() ? code : std::string();
  }

 private:
  // The field `name` when no refusal came before, it is there and `isKind` holds of it.
  const Json* find(const char* name, const char* kind, bool (*isKind)(const Json&)) {
    if (!refusal_.empty()) return nullptr;
    const auto found = object_.find(name);
    if (found == object_.end()) {
      refuse(name, "is missing");
      return nullptr;
    }
    if (!isKind(*found)) {
      const std::string got = found->is_number() ? found->dump() : found->type_name();
      refuse(name, std::string("must be ") + kind + ", got " + got);
      return nullptr;
    }
    return &*found;
  }

  void refuse(const char* name, const std::string& why) {
    if (refusal_.empty()) refusal_ = std::string(type_) + " message: '" + name + "' " + why;
  }

  const Json& object_;
  std::string_view type_;
  std::string refusal_;
};

// One row per message type: its "type" and how its fields are read.
struct MessageKind {
  std::string_view name;
  InputMessage (*read)(Fields& fields);
};

const std::vector<MessageKind>& messageKinds() {
  static const std::vector<MessageKind> kinds = {
      {"key",
       [](Fields& f) -> InputMessage {
         return KeyInput{.down = f.flag("down"),
                         .code = f.keyCode("code"),
                         .key = f.text("key", 0, kMostKeyBytes),
                         .repeat = f.flag("repeat"),
                         .mods = f.whole("mods", 0, kMostMods)};
       }},
      {"text",
       [](Fields& f) -> InputMessage {
         return TextInput{.utf8 = f.text("utf8", 1, kMostTextBytes)};
       }},
      {"button",
       [](Fields& f) -> InputMessage {
         return ButtonInput{.down = f.flag("down"),
                            .button = f.whole("button", 0, kLastButton),
                            .x = f.coordinate("x", kMostCoordinate),
                            .y = f.coordinate("y", kMostCoordinate),
                            .mods = f.whole("mods", 0, kMostMods)};
       }},
      {"move",
       [](Fields& f) -> InputMessage {
         return MoveInput{.x = f.coordinate("x", kMostCoordinate),
                          .y = f.coordinate("y", kMostCoordinate),
                          .buttons = f.whole("buttons", 0, kMostButtons)};
       }},
      {"wheel",
       [](Fields& f) -> InputMessage {
         return WheelInput{.dx = f.coordinate("dx", kMostWheelDelta),
                           .dy = f.coordinate("dy", kMostWheelDelta),
                           .x = f.coordinate("x", kMostCoordinate),
                           .y = f.coordinate("y", kMostCoordinate)};
       }},
      {"resize",
       [](Fields& f) -> InputMessage {
         return ResizeInput{.width = f.whole("w", kLeastWidth, kMostWidth),
                            .height = f.whole("h", kLeastHeight, kMostHeight),
                            .pixelRatio = f.number("dpr", kLeastPixelRatio, kMostPixelRatio)};
       }},
      {"ack",
       [](Fields& f) -> InputMessage {
         return FrameAck{.sequence = f.whole("seq", std::uint64_t{0}, kMostSequence)};
       }},
      {"take_control", [](Fields&) -> InputMessage { return TakeControl{}; }},
  };
  return kinds;
}

ParsedInput refused(const std::string& reason) {
  return {std::nullopt, printable(reason, kMostRefusalBytes)};
}

ParsedInput messageFrom(const Json& json) {
  if (!json.is_object())
    return refused(std::string("the message is a JSON ") + json.type_name() + ", not an object");
  const auto type = json.find("type");
  if (type == json.end()) return refused("the message has no 'type'");
  if (!type->is_string())
    return refused(std::string("the message's 'type' must be a string, got ") + type->type_name());
  const std::string& name = type->get_ref<const std::string&>();
  const MessageKind* kind = findByName(messageKinds(), name);
  if (!kind) return refused("unknown message type '" + name + "'");
  Fields fields(json, kind->name);
  InputMessage message = kind->read(fields);
  if (!fields.refusal().empty()) return refused(fields.refusal());
  return {std::move(message), {}};
}

}  // namespace

ParsedInput parseInputMessage(std::string_view text) {
  if (text.size() > kMostInputMessageBytes)
    return refused("the message is " + std::to_string(text.size()) + " bytes, more than the " +
                   std::to_string(kMostInputMessageBytes) + " an input message may have");
  try {
    return messageFrom(Json::parse(text.begin(), text.end()));
  } catch (const Json::parse_error& error) {
    return refused("the message is not JSON (at byte " + std::to_string(error.byte) + ")");
  } catch (const Json::out_of_range& error) {
    return refused("the message holds a number that is not finite as a double (" +
                   std::string(error.what()) + ")");
  } catch (const std::exception& error) {
    return refused(std::string("the message could not be read: ") + error.what());
  }
}

}  // namespace nbody
