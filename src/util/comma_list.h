#pragma once
// Comma-separated lists on the command line (--color-range, --overlays, --hide-components,
// --select, ...): split here once, each item then checked by the reader of its kind.

#include <string_view>
#include <vector>

namespace nbody {

// The items of `text` between commas, empty ones included ("a,,b" is three items, "" one empty
// item), as views into `text`.
inline std::vector<std::string_view> commaSeparated(std::string_view text) {
  std::vector<std::string_view> items;
  while (true) {
    const std::size_t comma = text.find(',');
    items.push_back(text.substr(0, comma));
    if (comma == std::string_view::npos) return items;
    text.remove_prefix(comma + 1);
  }
}

}  // namespace nbody
