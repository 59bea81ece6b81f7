#include "io/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace nbody {

std::string jsonEscaped(std::string_view text) {
  std::string escaped = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      escaped += '\\';
      escaped += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", c);
      escaped += code;
    } else {
      escaped += c;
    }
  }
  return escaped + "\"";
}

void JsonWriter::separator() {
  if (firstInScope_.empty()) return;
  if (!firstInScope_.back()) out_ << ',';
  firstInScope_.back() = false;
  out_ << "\n" << std::string(2 * firstInScope_.size(), ' ');
}

void JsonWriter::key(std::string_view name) {
  separator();
  if (!name.empty()) out_ << jsonEscaped(name) << ": ";
}

void JsonWriter::beginObject(std::string_view name) {
  key(name);
  out_ << '{';
  firstInScope_.push_back(true);
}

void JsonWriter::endObject() {
  firstInScope_.pop_back();
  out_ << "\n" << std::string(2 * firstInScope_.size(), ' ') << '}';
  if (firstInScope_.empty()) out_ << '\n';
}

void JsonWriter::beginArray(std::string_view name) {
  key(name);
  out_ << '[';
  firstInScope_.push_back(true);
}

void JsonWriter::endArray() {
  firstInScope_.pop_back();
  out_ << "\n" << std::string(2 * firstInScope_.size(), ' ') << ']';
}

void JsonWriter::field(std::string_view name, std::string_view value) {
  key(name);
  out_ << jsonEscaped(value);
}

void JsonWriter::field(std::string_view name, double value) {
  key(name);
  if (!std::isfinite(value)) {
    out_ << "null";
    return;
  }
  char buffer[32];
  out_ << std::string_view(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

void JsonWriter::field(std::string_view name, long long value) {
  key(name);
  out_ << value;
}

void JsonWriter::field(std::string_view name, bool value) {
  key(name);
  out_ << (value ? "true" : "false");
}

}  // namespace nbody
