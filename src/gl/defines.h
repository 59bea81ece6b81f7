#pragma once
// The #defines that make a shader variant, typed: integer values by name. Engines build one per
// pass from their parsed options; the list is also the variant's cache key, so a kernel is
// compiled once per distinct set and found again by comparing names and values, not text.

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace nbody::gl {

class Defines {
 public:
  Defines() = default;
  // `name`s must be string literals: they are kept by pointer.
  Defines(std::initializer_list<std::pair<const char*, int>> entries) : entries_(entries) {}
  Defines& set(const char* name, int value);
  Defines& set(const char* name, bool value) { return set(name, value ? 1 : 0); }
  Defines& add(const Defines& more);

  // "NAME VALUE" lines, in the order set, for gl::buildProgram.
  std::vector<std::string> lines() const;

  // By names' text and values: a stable order for cache keys.
  friend bool operator<(const Defines& a, const Defines& b) { return a.compare(b) < 0; }
  friend bool operator==(const Defines& a, const Defines& b) { return a.compare(b) == 0; }

 private:
  int compare(const Defines& other) const;
  std::vector<std::pair<const char*, int>> entries_;
};

}  // namespace nbody::gl
