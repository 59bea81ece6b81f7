#pragma once
// Text from files and from the command line goes into one-line messages on a terminal. Bytes that
// a terminal would act on (escape sequences, carriage returns, new lines) or that are no text at
// all are shown as \xNN instead, so a crafted file cannot rewrite the screen or split a message.

#include <cstddef>
#include <string>
#include <string_view>

namespace nbody {

// `text` with every byte outside printable ASCII as \xNN (a backslash as \\), cut after
// `maxBytes` input bytes with "..." appended.
inline std::string printable(std::string_view text, std::size_t maxBytes = std::string_view::npos) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string shown;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i == maxBytes) return shown + "...";
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\\') {
      shown += "\\\\";
    } else if (byte >= 0x20 && byte < 0x7f) {
      shown += char(byte);
    } else {
      shown += "\\x";
      shown += kHex[byte >> 4];
      shown += kHex[byte & 15];
    }
  }
  return shown;
}

// `text` made printable as above and put in single quotes, as messages quote what was typed.
inline std::string quoted(std::string_view text, std::size_t maxBytes = std::string_view::npos) {
  std::string shown(
      1, '\'');  // appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "'" + ...
  return shown.append(printable(text, maxBytes)).append(1, '\'');
}

// The same for a message that may carry file names in UTF-8: only control characters (C0, DEL,
// and C1 as UTF-8 encodes them, U+0080..U+009F) become \xNN; other bytes pass unchanged.
inline std::string withoutControlCharacters(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string shown;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0u;
    const bool c1 = byte == 0xc2 && next >= 0x80 && next < 0xa0;
    if (byte >= 0x20 && byte != 0x7f && !c1) {
      shown += char(byte);
      continue;
    }
    const auto shownByte = c1 ? static_cast<unsigned char>(text[++i]) : byte;
    shown += "\\x";
    shown += kHex[shownByte >> 4];
    shown += kHex[shownByte & 15];
  }
  return shown;
}

}  // namespace nbody
