#pragma once
// Whether bytes from outside (a browser's input messages) are well-formed UTF-8, as RFC 3629 and
// Unicode's table 3-7 define it: no overlong forms, no surrogates (U+D800..U+DFFF), nothing beyond
// U+10FFFF, no stray continuation bytes and no sequence cut short.

#include <string_view>

namespace nbody {

inline bool isValidUtf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    // The length of the sequence and the range its second byte must lie in: the narrowed ranges
    // after E0, ED, F0 and F4 are what refuse overlongs, surrogates and code points past U+10FFFF.
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
      length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead == 0xe0) low = 0xa0;
      if (lead == 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead == 0xf0) low = 0x90;
      if (lead == 0xf4) high = 0x8f;
    } else {
      return false;  // a continuation byte with no lead, C0, C1 (overlong ASCII) or F5..FF
    }
    if (text.size() - i < length) return false;
    const auto second = static_cast<unsigned char>(text[i + 1]);
    if (second < low || second > high) return false;
    for (std::size_t k = 2; k < length; ++k) {
      const auto continuation = static_cast<unsigned char>(text[i + k]);
      if (continuation < 0x80 || continuation > 0xbf) return false;
    }
    i += length;
  }
  return true;
}

}  // namespace nbody
