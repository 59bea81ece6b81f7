#pragma once
// Lookups in the small tables of named things (methods, scenes, engines, colormaps): each entry
// has a `name`.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace nbody {

template <typename Entry>
const Entry* findByName(const std::vector<Entry>& table, std::string_view name) {
  auto found =
      std::find_if(table.begin(), table.end(), [&](const Entry& e) { return e.name == name; });
  return found == table.end() ? nullptr : &*found;
}

template <typename Entry>
std::vector<std::string> namesOf(const std::vector<Entry>& table) {
  std::vector<std::string> names;
  for (const Entry& entry : table) names.push_back(entry.name);
  return names;
}

}  // namespace nbody
