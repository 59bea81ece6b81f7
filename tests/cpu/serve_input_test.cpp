// The messages a viewer of `nbody serve` sends (serve/input_message.h): each type is read with its
// values, and each thing wrong with a message is refused in a printable line that names the field
// at fault. The UTF-8 check (util/utf8_text.h) against sequences made here by the formula of
// RFC 3629, and against the classic malformed ones.

#include "serve/input_message.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/utf8_text.h"

namespace nbody {
namespace {

template <typename Message>
Message accepted(const std::string& text) {
  const ParsedInput parsed = parseInputMessage(text);
  EXPECT_TRUE(parsed.refusal.empty()) << text << ": " << parsed.refusal;
  if (!parsed.message || !std::holds_alternative<Message>(*parsed.message)) {
    ADD_FAILURE() << text << " was not read as the message expected";
    return Message{};
  }
  return std::get<Message>(*parsed.message);
}

bool printableLine(const std::string& text) {
  for (const char c : text)
    if (c < 0x20 || c > 0x7e) return false;
  return true;
}

// `text` is refused in one printable line that holds `named` (a field in quotes, mostly).
void expectRefused(const std::string& text, const std::string& named) {
  const ParsedInput parsed = parseInputMessage(text);
  EXPECT_FALSE(parsed.message.has_value()) << text;
  EXPECT_NE(parsed.refusal.find(named), std::string::npos) << text << " -> " << parsed.refusal;
  EXPECT_TRUE(printableLine(parsed.refusal)) << parsed.refusal;
}

// A valid message of each type with the fields it must have.
struct Sample {
  std::string text;
  std::vector<std::string> fields;
};

const std::vector<Sample>& samples() {
  static const std::vector<Sample> all = {
      {R"({"type":"key","down":true,"code":"KeyA","key":"a","repeat":false,"mods":3})",
       {"down", "code", "key", "repeat", "mods"}},
      {R"({"type":"text","utf8":"\u00e9"})", {"utf8"}},
      {R"({"type":"button","down":true,"button":0,"x":640,"y":338,"mods":0})",
       {"down", "button", "x", "y", "mods"}},
      {R"({"type":"move","x":1,"y":2,"buttons":1})", {"x", "y", "buttons"}},
      {R"({"type":"wheel","dx":0,"dy":-120,"x":640,"y":338})", {"dx", "dy", "x", "y"}},
      {R"({"type":"resize","w":1280,"h":800,"dpr":2})", {"w", "h", "dpr"}},
      {R"({"type":"ack","seq":17})", {"seq"}},
  };
  return all;
}

// `sample` with `field` set to `value` (or taken away when `value` is discarded).
std::string changed(const std::string& sample, const std::string& field,
                    const nlohmann::json& value) {
  nlohmann::json json = nlohmann::json::parse(sample);
  if (value.is_discarded()) {
    json.erase(field);
  } else {
    json[field] = value;
  }
  return json.dump();
}

TEST(ServeInput, KeyIsRead) {
  const auto key = accepted<KeyInput>(
      R"({"type":"key","down":true,"code":"KeyA","key":"a","repeat":false,"mods":3})");
  EXPECT_TRUE(key.down);
  EXPECT_EQ(key.code, "KeyA");
  EXPECT_EQ(key.key, "a");
  EXPECT_FALSE(key.repeat);
  EXPECT_EQ(key.mods, 3);
  const auto up = accepted<KeyInput>(
      R"({"type":"key","down":false,"code":"Space","key":" ","repeat":true,"mods":0})");
  EXPECT_FALSE(up.down);
  EXPECT_TRUE(up.repeat);
  EXPECT_EQ(up.key, " ");
}

TEST(ServeInput, TextIsRead) {
  EXPECT_EQ(accepted<TextInput>(R"({"type":"text","utf8":"\u00e9"})").utf8, "\xc3\xa9");
  EXPECT_EQ(accepted<TextInput>("{\"type\":\"text\",\"utf8\":\"\xc3\xa9\"}").utf8, "\xc3\xa9");
  EXPECT_EQ(accepted<TextInput>(R"({"type":"text","utf8":"\ud834\udd1e"})").utf8,
            "\xf0\x9d\x84\x9e");
}

TEST(ServeInput, ButtonIsRead) {
  const auto button = accepted<ButtonInput>(
      R"({"type":"button","down":false,"button":4,"x":640.5,"y":-3,"mods":15})");
  EXPECT_FALSE(button.down);
  EXPECT_EQ(button.button, 4);
  EXPECT_EQ(button.x, 640.5);
  EXPECT_EQ(button.y, -3.0);
  EXPECT_EQ(button.mods, 15);
}

TEST(ServeInput, MoveIsRead) {
  const auto move = accepted<MoveInput>(R"({"type":"move","x":-100000,"y":100000,"buttons":31})");
  EXPECT_EQ(move.x, -100000.0);
  EXPECT_EQ(move.y, 100000.0);
  EXPECT_EQ(move.buttons, 31);
}

TEST(ServeInput, WheelIsRead) {
  const auto wheel =
      accepted<WheelInput>(R"({"type":"wheel","dx":-10000,"dy":120.25,"x":1,"y":2})");
  EXPECT_EQ(wheel.dx, -10000.0);
  EXPECT_EQ(wheel.dy, 120.25);
  EXPECT_EQ(wheel.x, 1.0);
  EXPECT_EQ(wheel.y, 2.0);
}

TEST(ServeInput, ResizeIsRead) {
  const auto resize = accepted<ResizeInput>(R"({"type":"resize","w":1280,"h":800,"dpr":1.5})");
  EXPECT_EQ(resize.width, 1280);
  EXPECT_EQ(resize.height, 800);
  EXPECT_EQ(resize.pixelRatio, 1.5);
  const auto smallest = accepted<ResizeInput>(R"({"type":"resize","w":64,"h":64,"dpr":0.25})");
  EXPECT_EQ(smallest.width, 64);
  EXPECT_EQ(smallest.pixelRatio, 0.25);
  const auto largest = accepted<ResizeInput>(R"({"type":"resize","w":8192,"h":8192,"dpr":8})");
  EXPECT_EQ(largest.height, 8192);
  EXPECT_EQ(largest.pixelRatio, 8.0);
}

TEST(ServeInput, AckIsRead) {
  EXPECT_EQ(accepted<FrameAck>(R"({"type":"ack","seq":17})").sequence, 17u);
  EXPECT_EQ(accepted<FrameAck>(R"({"type":"ack","seq":0})").sequence, 0u);
  EXPECT_EQ(accepted<FrameAck>(R"({"type":"ack","seq":9007199254740991})").sequence,
            9007199254740991u);
}

TEST(ServeInput, TakeControlIsRead) { accepted<TakeControl>(R"({"type":"take_control"})"); }

TEST(ServeInput, ExtraFieldsAreIgnored) {
  const auto key = accepted<KeyInput>(
      R"({"type":"key","down":true,"code":"KeyB","key":"b","repeat":false,"mods":0,"location":0,"extra":{"a":[1,2]}})");
  EXPECT_EQ(key.code, "KeyB");
  accepted<TakeControl>(R"({"time":12.5,"type":"take_control","from":"page"})");
}

TEST(ServeInput, MessagesOverTheLimitAreRefused) {
  std::string text = R"({"type":"take_control"})";
  text.resize(4096, ' ');
  accepted<TakeControl>(text);
  text += ' ';
  ASSERT_EQ(text.size(), 4097u);
  expectRefused(text, "4097 bytes");
}

TEST(ServeInput, InvalidJsonIsRefused) {
  for (const char* text :
       {"", "{", R"({"type":"key",})", "{type:\"take_control\"}", R"({"type":"take_control"} x)",
        R"({"type":"move","x":NaN,"y":0,"buttons":0})"})
    expectRefused(text, "not JSON");
}

TEST(ServeInput, NonObjectsAreRefused) {
  for (const char* text : {"[1,2]", R"("take_control")", "3", "null", "true"})
    expectRefused(text, "not an object");
}

TEST(ServeInput, MissingTypeIsRefused) { expectRefused(R"({"down":true})", "no 'type'"); }

TEST(ServeInput, TypeOtherThanAStringIsRefused) {
  expectRefused(R"({"type":3})", "'type' must be a string");
  expectRefused(R"({"type":["key"]})", "'type' must be a string");
}

TEST(ServeInput, UnknownTypeIsRefused) {
  expectRefused(R"({"type":"keys"})", "'keys'");
  expectRefused(R"({"type":"KEY"})", "'KEY'");
  expectRefused(R"({"type":""})", "''");
}

TEST(ServeInput, EveryMissingFieldIsRefusedByName) {
  for (const Sample& sample : samples()) {
    EXPECT_TRUE(parseInputMessage(sample.text).message) << sample.text;
    for (const std::string& field : sample.fields)
      expectRefused(changed(sample.text, field, nlohmann::json::value_t::discarded),
                    "'" + field + "' is missing");
  }
}

TEST(ServeInput, EveryFieldOfTheWrongJsonTypeIsRefusedByName) {
  for (const Sample& sample : samples()) {
    const nlohmann::json original = nlohmann::json::parse(sample.text);
    for (const std::string& field : sample.fields) {
      // A value of another JSON type than the sample's: a string for a boolean or number, a number
      // for a string; null, an array and an object for any.
      const nlohmann::json other =
          original[field].is_string() ? nlohmann::json(1) : nlohmann::json("1");
      for (const nlohmann::json& value :
           {other, nlohmann::json(nullptr), nlohmann::json::array({1}),
            nlohmann::json::object({{"a", 1}})})
        expectRefused(changed(sample.text, field, value), "'" + field + "' must be");
    }
  }
  expectRefused(R"({"type":"key","down":1,"code":"KeyA","key":"a","repeat":false,"mods":0})",
                "'down' must be true or false");
}

TEST(ServeInput, NumbersBeyondADoubleAreRefused) {
  expectRefused(R"({"type":"move","x":1e999,"y":0,"buttons":0})", "not finite");
  expectRefused(R"({"type":"wheel","dx":0,"dy":-1e400,"x":0,"y":0})", "not finite");
}

TEST(ServeInput, CoordinatesBeyondTheirBoundsAreRefused) {
  expectRefused(R"({"type":"move","x":100000.5,"y":0,"buttons":0})", "'x'");
  expectRefused(R"({"type":"move","x":0,"y":-100001,"buttons":0})", "'y'");
  expectRefused(R"({"type":"button","down":true,"button":0,"x":1e300,"y":0,"mods":0})", "'x'");
  expectRefused(R"({"type":"wheel","dx":0,"dy":0,"x":0,"y":200000})", "'y'");
}

TEST(ServeInput, WheelDeltasBeyondTheirBoundsAreRefused) {
  expectRefused(R"({"type":"wheel","dx":10000.5,"dy":0,"x":0,"y":0})", "'dx'");
  expectRefused(R"({"type":"wheel","dx":0,"dy":-10001,"x":0,"y":0})", "'dy'");
}

TEST(ServeInput, ModsBeyondFourBitsAreRefused) {
  expectRefused(R"({"type":"key","down":true,"code":"KeyA","key":"a","repeat":false,"mods":16})",
                "'mods'");
  expectRefused(R"({"type":"button","down":true,"button":0,"x":0,"y":0,"mods":-1})", "'mods'");
}

TEST(ServeInput, ButtonsBeyondTheirBoundsAreRefused) {
  expectRefused(R"({"type":"move","x":0,"y":0,"buttons":32})", "'buttons'");
  expectRefused(R"({"type":"move","x":0,"y":0,"buttons":-1})", "'buttons'");
  expectRefused(R"({"type":"button","down":true,"button":5,"x":0,"y":0,"mods":0})", "'button'");
  expectRefused(R"({"type":"button","down":true,"button":-1,"x":0,"y":0,"mods":0})", "'button'");
}

TEST(ServeInput, WholeNumbersWrittenWithAFractionAreRefused) {
  expectRefused(R"({"type":"button","down":true,"button":1.0,"x":0,"y":0,"mods":0})",
                "'button' must be a whole number");
  expectRefused(R"({"type":"move","x":0,"y":0,"buttons":1e0})", "'buttons' must be a whole number");
  expectRefused(R"({"type":"ack","seq":1.5})", "'seq' must be a whole number");
}

TEST(ServeInput, ResizeBeyondItsBoundsIsRefused) {
  expectRefused(R"({"type":"resize","w":63,"h":800,"dpr":1})", "'w'");
  expectRefused(R"({"type":"resize","w":8193,"h":800,"dpr":1})", "'w'");
  expectRefused(R"({"type":"resize","w":1280,"h":63,"dpr":1})", "'h'");
  expectRefused(R"({"type":"resize","w":1280,"h":8193,"dpr":1})", "'h'");
  expectRefused(R"({"type":"resize","w":1280,"h":800,"dpr":0.24})", "'dpr'");
  expectRefused(R"({"type":"resize","w":1280,"h":800,"dpr":8.01})", "'dpr'");
  expectRefused(R"({"type":"resize","w":1280,"h":800,"dpr":0})", "'dpr'");
}

// Control characters (C0, DEL, C1) in typed text or a key; a no-break space (U+00A0) is text.
TEST(ServeInput, ControlCharactersAreRefused) {
  for (const char* control :
       {R"(\u0000)", R"(\u0007)", R"(a\tb)", R"(\u007f)", R"(\u0085)", R"(\u009f)"})
    expectRefused(std::string(R"({"type":"text","utf8":")") + control + "\"}", "'utf8'");
  expectRefused(
      R"({"type":"key","down":true,"code":"KeyA","key":"\u0001","repeat":false,"mods":0})",
      "'key'");
  EXPECT_EQ(accepted<TextInput>(R"({"type":"text","utf8":"\u00a0\u00e9"})").utf8,
            "\xc2\xa0\xc3\xa9");
}

TEST(ServeInput, SequencesBeyondAJavaScriptIntegerAreRefused) {
  expectRefused(R"({"type":"ack","seq":-1})", "'seq'");
  expectRefused(R"({"type":"ack","seq":9007199254740992})", "'seq'");
  expectRefused(R"({"type":"ack","seq":18446744073709551615})", "'seq'");
  expectRefused(R"({"type":"ack","seq":18446744073709551616})", "'seq'");
}

std::string keyWithCode(const std::string& code) {
  return R"({"type":"key","down":true,"code":")" + code + R"(","key":"a","repeat":false,"mods":0})";
}

TEST(ServeInput, KeyCodesOtherThanLettersAndDigitsAreRefused) {
  EXPECT_EQ(accepted<KeyInput>(keyWithCode(std::string(32, 'F'))).code, std::string(32, 'F'));
  EXPECT_EQ(accepted<KeyInput>(keyWithCode("Digit0")).code, "Digit0");
  for (const std::string& code :
       {std::string(), std::string(33, 'F'), std::string("Key-A"), std::string("Key A"),
        std::string("K\xc3\xa9yA"), std::string("KeyA\\u0000"), std::string("Key_A")})
    expectRefused(keyWithCode(code), "'code'");
}

std::string keyWithKey(const std::string& key) {
  return R"({"type":"key","down":true,"code":"KeyA","key":")" + key +
         R"(","repeat":false,"mods":0})";
}

TEST(ServeInput, KeyStringsOver32BytesAreRefused) {
  EXPECT_EQ(accepted<KeyInput>(keyWithKey(std::string(32, 'x'))).key.size(), 32u);
  EXPECT_EQ(accepted<KeyInput>(keyWithKey("")).key, "");
  expectRefused(keyWithKey(std::string(33, 'x')), "'key' is 33 bytes");
  expectRefused(keyWithKey(std::string(31, 'x') + "\xc3\xa9"), "'key' is 33 bytes");
}

std::string textOf(const std::string& utf8) {
  return R"({"type":"text","utf8":")" + utf8 + R"("})";
}

TEST(ServeInput, EmptyTextIsRefused) { expectRefused(textOf(""), "'utf8' must not be empty"); }

TEST(ServeInput, TextOver64BytesIsRefused) {
  EXPECT_EQ(accepted<TextInput>(textOf(std::string(64, 'x'))).utf8.size(), 64u);
  expectRefused(textOf(std::string(65, 'x')), "'utf8' is 65 bytes");
  expectRefused(textOf(std::string(63, 'x') + "\xc3\xa9"), "'utf8' is 65 bytes");
}

// JSON text holds only well-formed UTF-8, so the JSON reader refuses these before the field check.
TEST(ServeInput, TextThatIsNotUtf8IsRefused) {
  for (const char* bytes : {"\xc0\x80", "\xed\xa0\x80", "\xff", "\xe2\x82", "\\ud800", "\\udc00x"})
    expectRefused(textOf(bytes), "not JSON");
}

TEST(ServeInput, RefusalsShowWhatWasSentPrintably) {
  const ParsedInput parsed = parseInputMessage(R"({"type":"\u001b[2J\n\\"})");
  ASSERT_FALSE(parsed.message);
  EXPECT_NE(parsed.refusal.find("'\\x1b[2J\\x0a\\\\'"), std::string::npos) << parsed.refusal;
  EXPECT_TRUE(printableLine(parsed.refusal));
  const ParsedInput longType = parseInputMessage(R"({"type":")" + std::string(1000, 'k') + R"("})");
  EXPECT_LT(longType.refusal.size(), 300u);
}

// A code point as UTF-8 of `length` bytes (longer than the shortest form: an overlong one).
std::string utf8Of(std::uint32_t codePoint, int length) {
  if (length == 1) return std::string(1, char(codePoint));
  std::string bytes(std::size_t(length), '\0');
  for (int k = length - 1; k > 0; --k) {
    bytes[std::size_t(k)] = char(0x80 | (codePoint & 0x3f));
    codePoint >>= 6;
  }
  const std::uint32_t leadMarks[] = {0, 0, 0xc0, 0xe0, 0xf0};
  bytes[0] = char(leadMarks[length] | codePoint);
  return bytes;
}

int shortestLength(std::uint32_t codePoint) {
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

TEST(ServeInputUtf8, EveryScalarValueIsValidAndEverySurrogateIsNot) {
  int wrong = 0;
  for (std::uint32_t codePoint = 0; codePoint <= 0x10ffff; ++codePoint) {
    const bool surrogate = codePoint >= 0xd800 && codePoint <= 0xdfff;
    const std::string bytes = utf8Of(codePoint, shortestLength(codePoint));
    if (isValidUtf8(bytes) == surrogate && ++wrong < 10)
      ADD_FAILURE() << "U+" << std::hex << codePoint;
    // Cut short, it is never valid.
    if (bytes.size() > 1 && isValidUtf8(bytes.substr(0, bytes.size() - 1)) && ++wrong < 10)
      ADD_FAILURE() << "U+" << std::hex << codePoint << " cut short";
  }
  EXPECT_EQ(wrong, 0);
}

TEST(ServeInputUtf8, OverlongFormsAndCodePointsBeyondUnicodeAreInvalid) {
  for (std::uint32_t codePoint = 0; codePoint < 0x10000; codePoint += 7)
    for (int length = shortestLength(codePoint) + 1; length <= 4; ++length)
      EXPECT_FALSE(isValidUtf8(utf8Of(codePoint, length)))
          << std::hex << codePoint << " in " << length;
  for (std::uint32_t codePoint = 0x110000; codePoint <= 0x1fffff; codePoint += 0x1001)
    EXPECT_FALSE(isValidUtf8(utf8Of(codePoint, 4))) << std::hex << codePoint;
}

TEST(ServeInputUtf8, KnownSequences) {
  for (const char* valid :
       {"", "abc", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9d\x84\x9e", "\xf4\x8f\xbf\xbf",
        "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf", "a\xc2\x80z"})
    EXPECT_TRUE(isValidUtf8(valid)) << valid;
  for (const char* invalid : {"\x80",
                              "\xbf",
                              "\xc0\x80",
                              "\xc1\xbf",
                              "\xe0\x80\x80",
                              "\xe0\x9f\xbf",
                              "\xf0\x80\x80\x80",
                              "\xf0\x8f\xbf\xbf",
                              "\xed\xa0\x80",
                              "\xed\xbf\xbf",
                              "\xf4\x90\x80\x80",
                              "\xf5\x80\x80\x80",
                              "\xfe",
                              "\xff",
                              "\xc3",
                              "\xe2\x82",
                              "a\xc3",
                              "\xc3\x41",
                              "\xe2\x28\xa1",
                              "\xf0\x9d\x84"})
    EXPECT_FALSE(isValidUtf8(invalid)) << invalid;
  EXPECT_TRUE(isValidUtf8(std::string("a\0b", 3)));
}

}  // namespace
}  // namespace nbody
