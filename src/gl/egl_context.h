#pragma once
// A headless OpenGL 4.5 core context through EGL: no window, no X server. Platforms are tried in
// order: the EGL device platform (how an NVIDIA GPU is reached headless), Mesa's surfaceless
// platform (llvmpipe on machines without a GPU), then the default display.

#include <memory>
#include <string>
#include <vector>

#include "gl/context_info.h"

namespace nbody::gl {

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

// The EGL device a headless context takes on the device platform: `ordinal` modulo the devices
// (the hardware ones, or Mesa's software device where there is none); 0 unless set. A distributed
// run's rank takes its index on its node, so that each rank of a node has a GPU of its own.
void chooseDevice(int ordinal);

}  // namespace nbody::gl
