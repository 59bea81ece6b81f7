#include "gl/defines.h"

#include <cstring>

namespace nbody::gl {

Defines& Defines::set(const char* name, int value) {
  for (auto& [existing, current] : entries_)
    if (std::strcmp(existing, name) == 0) {
      current = value;
      return *this;
    }
  entries_.emplace_back(name, value);
  return *this;
}

Defines& Defines::add(const Defines& more) {
  for (const auto& [name, value] : more.entries_) set(name, value);
  return *this;
}

std::vector<std::string> Defines::lines() const {
  std::vector<std::string> lines;
  for (const auto& [name, value] : entries_)
    lines.push_back(std::string(name) + " " + std::to_string(value));
  return lines;
}

int Defines::compare(const Defines& other) const {
  if (entries_.size() != other.entries_.size())
    return entries_.size() < other.entries_.size() ? -1 : 1;
  for (std::size_t k = 0; k < entries_.size(); ++k) {
    if (const int names = std::strcmp(entries_[k].first, other.entries_[k].first)) return names;
    if (entries_[k].second != other.entries_[k].second)
      return entries_[k].second < other.entries_[k].second ? -1 : 1;
  }
  return 0;
}

}  // namespace nbody::gl
