#pragma once
// A small JSON writer for reports: objects, arrays, strings and numbers, nothing more.

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace nbody {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}
  void beginObject(std::string_view key = {});  // no key: the root, or an element of an array
  void endObject();
  void beginArray(std::string_view key);
  void endArray();
  void field(std::string_view key, std::string_view value);
  void field(std::string_view key, const char* value) { field(key, std::string_view(value)); }
  void field(std::string_view key, double value);
  void field(std::string_view key, long long value);
  void field(std::string_view key, bool value);

 private:
  void separator();
  void key(std::string_view name);
  std::ostream& out_;
  std::vector<bool> firstInScope_;
};

std::string jsonEscaped(std::string_view text);

}  // namespace nbody
