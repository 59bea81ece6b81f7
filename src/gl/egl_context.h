#pragma once
// A headless OpenGL 4.5 core context through EGL: no window, no X server. Platforms are tried in
// order: the EGL device platform (how an NVIDIA GPU is reached headless), Mesa's surfaceless
// platform (llvmpipe on machines without a GPU), then the default display.

#include <memory>
#include <string>
#include <vector>

namespace nbody::gl {

struct ContextInfo {
  std::string renderer, vendor, version, platform;
  int major = 0, minor = 0;
  bool supports(int wantMajor, int wantMinor) const {
    return major > wantMajor || (major == wantMajor && minor >= wantMinor);
  }
};

class HeadlessContext {
 public:
  // Throws DetailedError (util/detailed_error.h) with a line for every platform tried and what
  // it said; std::runtime_error where the driver could not start (gl/driver_environment.h).
  // NBODY_EGL_PLATFORM=device|surfaceless|default restricts the attempt to one platform.
  static std::unique_ptr<HeadlessContext> create(bool debugContext = false);
  ~HeadlessContext();
  HeadlessContext(const HeadlessContext&) = delete;
  HeadlessContext& operator=(const HeadlessContext&) = delete;

  const ContextInfo& info() const { return info_; }

 private:
  HeadlessContext() = default;
  void* display_ = nullptr;
  void* context_ = nullptr;
  ContextInfo info_;
};

// Reads renderer, vendor and version strings of the current context.
ContextInfo queryCurrentContext(std::string platform);

}  // namespace nbody::gl
