#pragma once
// The viewer page of `nbody serve` (assets/serve/viewer.html), embedded into the binary at build
// time (tools/embed_viewer_page.cmake), so the server reads no file and works offline.

#include <string_view>

namespace nbody {

// Where the page's script and style elements carry their nonce: the server writes a fresh one over
// every occurrence, for each answer, and names it in the Content-Security-Policy.
inline constexpr std::string_view kPageNonceMarker = "NBODY_NONCE";

// The page as it is in assets/serve/viewer.html.
std::string_view viewerPageTemplate();

}  // namespace nbody
