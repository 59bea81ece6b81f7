#include "gl/level.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

#include <glad/gl.h>

namespace nbody::gl {
namespace {

constexpr GlTarget kTargets[] = {
    {"450", "#version 450 core\n", "#version 450", ApiLevel::directStateAccess, 4, 5},
    {"410", "#version 410 core\n", "#version 410", ApiLevel::bindToEdit, 4,
     1},  // macOS's OpenGL 4.1
    // WebGL2's: no default precision for float, sampler2DArray and usampler2D, and no fma (the
    // same rounding as a * b + c, so its runs agree with the others' to rounding, not to bits).
    {"300es",
     "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2D;\n"
     "precision highp sampler2DArray;\nprecision highp usampler2D;\n"
     "#define fma(a, b, c) ((a) * (b) + (c))\n",
     "#version 300 es", ApiLevel::bindToEdit, 4, 1},
};

#if defined(GL_VERSION_4_5)
constexpr std::string_view kDefaultTarget = "450";
constexpr int kFirstTarget = 0;
#elif defined(__EMSCRIPTEN__)
constexpr std::string_view kDefaultTarget = "300es";
constexpr int kFirstTarget = 2;  // WebGL2's alone
#else
constexpr std::string_view kDefaultTarget = "410";
constexpr int kFirstTarget = 1;
#endif

const GlTarget*& cachedTarget() {
  static const GlTarget* target = nullptr;
  return target;
}

const GlTarget& targetNamed(std::string_view name) {
  std::string names;
  for (int k = kFirstTarget; k < int(std::size(kTargets)); ++k) {
    if (kTargets[k].name == name) return kTargets[k];
    names += (names.empty() ? "" : ", ") + std::string(kTargets[k].name);
  }
  throw std::runtime_error("NBODY_GL_TARGET is '" + std::string(name) + "': it takes " + names);
}

}  // namespace

const GlTarget& glTarget() {
  const GlTarget*& target = cachedTarget();
  if (target == nullptr) {
    const char* asked = std::getenv("NBODY_GL_TARGET");
    target = &targetNamed(asked == nullptr || *asked == '\0' ? kDefaultTarget : asked);
  }
  return *target;
}

void forgetGlTarget() { cachedTarget() = nullptr; }

}  // namespace nbody::gl
