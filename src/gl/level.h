#pragma once
// The OpenGL a run keeps to. Two levels: GL 4.5 core with direct state access and compute shaders
// (the desktop's), and the subset GL 4.1 core and OpenGL ES 3.0 share (macOS's OpenGL, WebGL2's):
// objects edited while bound, no compute shaders, no immutable storage, no texture clears or
// texture reads (state_access.h holds what differs). NBODY_GL_TARGET=450|410|300es picks a target
// on a desktop context, so that the tests run the subset here: its shaders then compile as GLSL
// 4.10 or ES 3.00 (Mesa holds a shader to the version it names), and the context counts as 4.1
// (limits.h), which refuses the engines that need compute. A build whose loader lacks GL 4.5
// (macOS's, the web's) keeps to the subset whatever it is asked.

#include <string_view>

namespace nbody::gl {

enum class ApiLevel { directStateAccess, bindToEdit };

struct GlTarget {
  std::string_view name;      // NBODY_GL_TARGET's value
  std::string_view preamble;  // what each vertex and fragment shader starts with
  std::string_view version;   // its #version line alone, as Dear ImGui's renderer takes it
  ApiLevel level;
  int major, minor;  // the OpenGL version the context counts as
};

// The target asked for, read once a context (forgetLimits() forgets it too); an unknown value
// throws with one line that names the known ones.
const GlTarget& glTarget();
void forgetGlTarget();
inline bool directStateAccess() { return glTarget().level == ApiLevel::directStateAccess; }

// Compute shaders stay GLSL 4.50 whatever the target: neither 4.1 nor ES 3.0 has them.
inline constexpr std::string_view kComputePreamble = "#version 450 core\n";

}  // namespace nbody::gl
