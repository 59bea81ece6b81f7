#pragma once
// What the current OpenGL context is: renderer, vendor, version, and how it was made (EGL, a GLFW
// window, a browser's WebGL2 canvas).

#include <string>

namespace nbody::gl {

struct ContextInfo {
  std::string renderer, vendor, version, platform;
  std::string device;  // which EGL device, where the device platform made it: "EGL device 1 of 4,
                       // /dev/dri/..."
  int major = 0, minor = 0;
  bool supports(int wantMajor, int wantMinor) const {
    return major > wantMajor || (major == wantMajor && minor >= wantMinor);
  }
};

// Reads renderer, vendor and version strings of the current context.
ContextInfo queryCurrentContext(std::string platform);

}  // namespace nbody::gl
