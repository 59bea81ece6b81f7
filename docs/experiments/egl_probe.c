// Which step of EGL's device platform fails on a machine, device by device, and whether the
// surfaceless platform takes a device explicitly (EGL_EXT_explicit_device). Round 17:
//   gcc -O1 -o egl_probe docs/experiments/egl_probe.c -lEGL
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <stdio.h>
#include <string.h>

#define LOAD(type, name) type name = (type)eglGetProcAddress(#name)

static void tryDisplay(const char* what, EGLDisplay d) {
  if (d == EGL_NO_DISPLAY) { printf("  %s: no display (0x%x)\n", what, eglGetError()); return; }
  EGLint major = 0, minor = 0;
  if (!eglInitialize(d, &major, &minor)) { printf("  %s: eglInitialize failed 0x%x\n", what, eglGetError()); return; }
  printf("  %s: EGL %d.%d vendor %s\n  extensions: %s\n", what, major, minor, eglQueryString(d, EGL_VENDOR),
         eglQueryString(d, EGL_EXTENSIONS));
  if (!eglBindAPI(EGL_OPENGL_API)) printf("  bindAPI failed 0x%x\n", eglGetError());
  const EGLint attrs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE};
  EGLConfig config = 0; EGLint n = 0;
  EGLBoolean ok = eglChooseConfig(d, attrs, &config, 1, &n);
  printf("  chooseConfig(surface 0): ok %d n %d err 0x%x\n", ok, n, eglGetError());
  if (n == 0) {
    const EGLint pb[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_NONE};
    ok = eglChooseConfig(d, pb, &config, 1, &n);
    printf("  chooseConfig(pbuffer): ok %d n %d err 0x%x\n", ok, n, eglGetError());
  }
  const EGLint ca[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5, EGL_CONTEXT_OPENGL_PROFILE_MASK,
                       EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  EGLContext c = eglCreateContext(d, n ? config : EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, ca);
  printf("  createContext: %s err 0x%x\n", c == EGL_NO_CONTEXT ? "FAILED" : "ok", eglGetError());
  if (c != EGL_NO_CONTEXT) {
    EGLBoolean cur = eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c);
    printf("  makeCurrent: %d err 0x%x\n", cur, eglGetError());
    typedef const unsigned char* (*GetString)(unsigned);
    GetString getString = (GetString)eglGetProcAddress("glGetString");
    if (cur && getString) printf("  GL_RENDERER %s\n", getString(0x1F01));
    eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(d, c);
  }
  eglTerminate(d);
}

int main(void) {
  printf("client extensions: %s\n", eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS));
  LOAD(PFNEGLQUERYDEVICESEXTPROC, eglQueryDevicesEXT);
  LOAD(PFNEGLQUERYDEVICESTRINGEXTPROC, eglQueryDeviceStringEXT);
  LOAD(PFNEGLGETPLATFORMDISPLAYEXTPROC, eglGetPlatformDisplayEXT);
  printf("eglQueryDevicesEXT %p eglQueryDeviceStringEXT %p eglGetPlatformDisplayEXT %p\n", (void*)eglQueryDevicesEXT,
         (void*)eglQueryDeviceStringEXT, (void*)eglGetPlatformDisplayEXT);
  EGLDeviceEXT devices[16]; EGLint count = 0;
  if (eglQueryDevicesEXT && eglQueryDevicesEXT(16, devices, &count)) {
    printf("%d device(s)\n", count);
    for (int i = 0; i < count; ++i) {
      const char* ext = eglQueryDeviceStringEXT ? eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS) : 0;
      printf("device %d: extensions %s\n", i, ext ? ext : "(none)");
      if (ext && strstr(ext, "EGL_EXT_device_drm")) printf("  drm file %s\n", eglQueryDeviceStringEXT(devices[i], EGL_DRM_DEVICE_FILE_EXT));
#ifdef EGL_DRM_RENDER_NODE_FILE_EXT
      if (ext && strstr(ext, "EGL_EXT_device_drm_render_node")) printf("  render node %s\n", eglQueryDeviceStringEXT(devices[i], EGL_DRM_RENDER_NODE_FILE_EXT));
#endif
      tryDisplay("device display", eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL));
      const EGLAttrib explicitDevice[] = {0x322C /* EGL_DEVICE_EXT */, (EGLAttrib)devices[i], EGL_NONE};
      LOAD(PFNEGLGETPLATFORMDISPLAYPROC, eglGetPlatformDisplay);
      if (eglGetPlatformDisplay)
        tryDisplay("surfaceless with EGL_DEVICE_EXT (EGL_EXT_explicit_device)",
                   eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, explicitDevice));
    }
  } else {
    printf("eglQueryDevicesEXT failed 0x%x\n", eglGetError());
  }
  if (eglGetPlatformDisplayEXT) tryDisplay("surfaceless", eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL));
  return 0;
}
