#pragma once
// Lists in text: comma-separated ones on the command line (--color-range, --overlays,
// --hide-components, --select, ...) split here once, each item then checked by the reader of its
// kind; items trimmed of blanks; lists joined for messages.

#include <string>
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

inline std::vector<std::string_view> commaSeparated(std::string_view text) {
  return separatedBy(text, ',');
}

// `text` without the spaces, tabs and carriage returns around it.
inline std::string_view trimmed(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// The items with `separator` between them ("" for none).
inline std::string joined(const std::vector<std::string>& items, std::string_view separator) {
  std::string text;
  for (const std::string& item : items) text.append(text.empty() ? "" : separator).append(item);
  return text;
}

}  // namespace nbody
