#pragma once
// GL errors never pass silently: a KHR_debug callback records every error message, and callers
// (tests, debug builds) check that none arrived.

#include <string>
#include <vector>

namespace nbody::gl {

// Installs the callback on the current context (synchronous output, so a message arrives inside
// the call that caused it). Messages of type error are recorded; others of high severity printed.
// Whether the KHR_debug callback is wanted: NBODY_GL_DEBUG set, or a build with assertions.
bool debugWanted();
void installDebugCallback();
// The error messages recorded since the last call, and forgets them.
std::vector<std::string> takeDebugErrors();
// What glGetError reports until it reports no error, named (" GL_INVALID_VALUE", ...), which
// clears it; "" where it reports none. Any context, debug or not.
std::string takeGlErrorCodes();

}  // namespace nbody::gl
