#pragma once
// Comma-separated lists on the command line (--color-range, --overlays, --hide-components,
// --select, ...): split here once, each item then checked by the reader of its kind.

#include <string_view>
#include <vector>

namespace nbody {

// The items of `text` between `separator`s, empty ones included ("a,,b" is three items, "" one
// empty item), as views into `text`.
inline std::vector<std::string_view> separatedBy(std::string_view text, char separator) {
  std::vector<std::string_view> items;
  while (true) {
    const std::size_t at = text.find(separator);
    items.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return items;
    text.remove_prefix(at + 1);
  }
}

inline std::vector<std::string_view> commaSeparated(std::string_view text) { return separatedBy(text, ','); }

}  // namespace nbody
