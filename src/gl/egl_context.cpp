#include "gl/egl_context.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <stdexcept>

#include <glad/egl.h>
#include <glad/gl.h>

#include "gl/driver_environment.h"
#include "gl/limits.h"
#include "util/detailed_error.h"
#include "util/system_limits.h"

namespace nbody::gl {
namespace {

struct Attempt {
  std::string platform;
  std::function<EGLDisplay(std::string& why)> display;
};

std::string eglErrorName(EGLint error) {
  switch (error) {
    case EGL_SUCCESS:
      return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED:
      return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS:
      return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC:
      return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE:
      return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG:
      return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT:
      return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY:
      return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH:
      return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER:
      return "EGL_BAD_PARAMETER";
    default:
      return "EGL error " + std::to_string(error);
  }
}

std::string lastEglError() { return eglErrorName(eglGetError()); }

int deviceOrdinal = 0;     // chooseDevice()
std::string chosenDevice;  // what deviceDisplay took, for ContextInfo::device

bool deviceOffers(EGLDeviceEXT device, const char* extension) {
  const char* extensions =
      eglQueryDeviceStringEXT ? eglQueryDeviceStringEXT(device, EGL_EXTENSIONS) : nullptr;
  return extensions && std::strstr(extensions, extension);
}

bool isSoftware(EGLDeviceEXT device) { return deviceOffers(device, "EGL_MESA_device_software"); }

// "/dev/dri/card1 (PCI 0000:19:00.0)" where the device names its DRM file, else "".
std::string drmFileOf(EGLDeviceEXT device) {
  if (!deviceOffers(device, "EGL_EXT_device_drm")) return "";
  const char* file = eglQueryDeviceStringEXT(device, EGL_DRM_DEVICE_FILE_EXT);
  if (!file) return "";
  std::string text = file;
  std::error_code error;
  const std::filesystem::path card = std::filesystem::path(file).filename();
  const auto bus = std::filesystem::read_symlink("/sys/class/drm" / card / "device", error);
  if (!error) text += " (PCI " + bus.filename().string() + ")";
  return text;
}

// "CUDA device 2" where NVIDIA's driver says which CUDA device it is (a container may have no DRM
// files), else "".
std::string cudaOrdinalOf(EGLDeviceEXT device) {
  EGLAttrib ordinal = -1;
  if (!deviceOffers(device, "EGL_NV_device_cuda") || !eglQueryDeviceAttribEXT ||
      !eglQueryDeviceAttribEXT(device, EGL_CUDA_DEVICE_NV, &ordinal) || ordinal < 0)
    return "";
  return "CUDA device " + std::to_string(ordinal);
}

std::string describeDevice(EGLDeviceEXT device) {
  const std::string drm = drmFileOf(device), cuda = cudaOrdinalOf(device);
  return drm.empty() || cuda.empty() ? drm + cuda : drm + ", " + cuda;
}

// The devices to choose from: the hardware ones, or Mesa's software device where there is none.
std::vector<EGLDeviceEXT> candidateDevices(EGLDeviceEXT* devices, EGLint count) {
  std::vector<EGLDeviceEXT> hardware, software;
  for (EGLint i = 0; i < count; ++i)
    (isSoftware(devices[i]) ? software : hardware).push_back(devices[i]);
  return hardware.empty() ? software : hardware;
}

// NVIDIA's driver names only EGL_EXT_device_base, which is device_enumeration and device_query
// together; Mesa names all three.
bool devicesEnumerable() {
  return (GLAD_EGL_EXT_device_enumeration || GLAD_EGL_EXT_device_base) && eglQueryDevicesEXT;
}

EGLDisplay deviceDisplay(std::string& why) {
  if (!GLAD_EGL_EXT_platform_device || !devicesEnumerable()) {
    why = "EGL_EXT_platform_device or EGL_EXT_device_enumeration (or _base) not offered";
    return EGL_NO_DISPLAY;
  }
  EGLDeviceEXT devices[16];
  EGLint count = 0;
  if (!eglQueryDevicesEXT(16, devices, &count) || count == 0) {
    why = "no EGL device (" + lastEglError() + ")";
    return EGL_NO_DISPLAY;
  }
  // The chosen device first (a distributed run's rank takes its node's ordinal), then the others.
  const std::vector<EGLDeviceEXT> candidates = candidateDevices(devices, count);
  const std::size_t chosen = std::size_t(deviceOrdinal) % candidates.size();
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    const std::size_t i = (chosen + k) % candidates.size();
    EGLDisplay display = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, candidates[i], nullptr);
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, nullptr, nullptr)) continue;
    chosenDevice = "EGL device " + std::to_string(i) + " of " + std::to_string(candidates.size());
    if (const std::string drm = describeDevice(candidates[i]); !drm.empty())
      chosenDevice += ", " + drm;
    return display;
  }
  why = std::to_string(count) + " device(s), none initialised (" + lastEglError() + ")";
  return EGL_NO_DISPLAY;
}

EGLDisplay surfacelessDisplay(std::string& why) {
  if (!GLAD_EGL_MESA_platform_surfaceless || !eglGetPlatformDisplayEXT) {
    why = "EGL_MESA_platform_surfaceless not offered";
    return EGL_NO_DISPLAY;
  }
  EGLDisplay display =
      eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  if (display != EGL_NO_DISPLAY && eglInitialize(display, nullptr, nullptr)) return display;
  why = "could not initialise (" + lastEglError() + ")";
  return EGL_NO_DISPLAY;
}

EGLDisplay defaultDisplay(std::string& why) {
  EGLDisplay display = eglGetDisplay(EGL_DEFAULT_DISPLAY);
  if (display != EGL_NO_DISPLAY && eglInitialize(display, nullptr, nullptr)) return display;
  why = "could not initialise (" + lastEglError() + ")";
  return EGL_NO_DISPLAY;
}

// On an initialised display: an OpenGL 4.5 core context, current without any surface.
EGLContext makeContext(EGLDisplay display, bool debugContext, std::string& why) {
  if (!gladLoaderLoadEGL(display)) {
    why = "could not load EGL functions for the display";
    return EGL_NO_CONTEXT;
  }
  if (!GLAD_EGL_KHR_surfaceless_context) {
    why = "EGL_KHR_surfaceless_context not offered";
    return EGL_NO_CONTEXT;
  }
  if (!eglBindAPI(EGL_OPENGL_API)) {
    why = "no desktop OpenGL API (" + lastEglError() + ")";
    return EGL_NO_CONTEXT;
  }
  const EGLint configAttributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, 0,
                                     EGL_NONE};
  EGLConfig config = nullptr;
  EGLint configCount = 0;
  if (!eglChooseConfig(display, configAttributes, &config, 1, &configCount) || configCount == 0) {
    if (!GLAD_EGL_KHR_no_config_context) {
      why = "no config with OpenGL (" + lastEglError() + ")";
      return EGL_NO_CONTEXT;
    }
    config = EGL_NO_CONFIG_KHR;
  }
  const EGLint contextAttributes[] = {EGL_CONTEXT_MAJOR_VERSION,
                                      4,
                                      EGL_CONTEXT_MINOR_VERSION,
                                      5,
                                      EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                      EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                      EGL_CONTEXT_OPENGL_DEBUG,
                                      debugContext ? EGL_TRUE : EGL_FALSE,
                                      EGL_NONE};
  EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, contextAttributes);
  if (context == EGL_NO_CONTEXT) {
    why = "no OpenGL 4.5 core context (" + lastEglError() + ")";
    return EGL_NO_CONTEXT;
  }
  if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
    why = "context could not be made current (" + lastEglError() + ")";
    eglDestroyContext(display, context);
    return EGL_NO_CONTEXT;
  }
  if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress))) {
    why = "could not load OpenGL functions";
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(display, context);
    return EGL_NO_CONTEXT;
  }
  return context;
}

}  // namespace

void chooseDevice(int ordinal) { deviceOrdinal = ordinal < 0 ? 0 : ordinal; }

std::unique_ptr<HeadlessContext> HeadlessContext::create(bool debugContext) {
  prepareDriverEnvironment();
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY))
    throw std::runtime_error("no OpenGL context: libEGL.so.1 could not be loaded");
  const std::vector<Attempt> attempts{
      {"device", deviceDisplay}, {"surfaceless", surfacelessDisplay}, {"default", defaultDisplay}};
  const char* only = std::getenv("NBODY_EGL_PLATFORM");
  std::vector<std::string> report;  // a line for each platform tried
  for (const Attempt& attempt : attempts) {
    if (only && *only && attempt.platform != only) continue;
    std::string why;
    chosenDevice.clear();
    EGLDisplay display = attempt.display(why);
    EGLContext context =
        display == EGL_NO_DISPLAY ? EGL_NO_CONTEXT : makeContext(display, debugContext, why);
    if (context != EGL_NO_CONTEXT) {
      auto made = std::unique_ptr<HeadlessContext>(new HeadlessContext());
      made->display_ = display;
      made->context_ = context;
      forgetLimits();  // a new context: its own limits
      made->info_ = queryCurrentContext("EGL " + attempt.platform);
      made->info_.device = chosenDevice;
      if (made->info_.supports(4, 5)) return made;
      why = "OpenGL " + made->info_.version + " is below 4.5";  // `made` releases the display
    } else if (display != EGL_NO_DISPLAY) {
      eglTerminate(display);
    }
    report.push_back("EGL " + attempt.platform + " platform: " + why);
  }
  if (report.empty())
    report.push_back("NBODY_EGL_PLATFORM=" + std::string(only) + " names no platform");
  // A driver short of address space says only that it could not start (EGL_NOT_INITIALIZED).
  throw DetailedError(
      "no OpenGL 4.5 core context could be made" + limitsThatMayBeBehind() + ". Tried:", report);
}

HeadlessContext::~HeadlessContext() {
  forgetLimits();
  eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(display_, context_);
  eglTerminate(display_);
}

}  // namespace nbody::gl
