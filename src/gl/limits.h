#pragma once
// What the current OpenGL context offers, queried once per context: the sizes, counts and
// extensions the engines, the renderer and the capacity checks size themselves by. OpenGL only
// promises minimums (16 texture units a stage, 65535 work groups a dimension, 8 draw buffers,
// 16 MB of shader storage); drivers offer more, and a variant that assumes more than the
// minimum asks here.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nbody::gl {

struct Limits {
  int versionMajor = 0, versionMinor = 0;
  int maxTextureSize = 0;
  int maxDrawBuffers = 0, maxColorAttachments = 0;
  int maxFragmentTextureUnits = 0;  // GL_MAX_TEXTURE_IMAGE_UNITS
  int maxComputeTextureUnits = 0;   // GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS
  int maxComputeImageUnits = 0;     // GL_MAX_COMPUTE_IMAGE_UNIFORMS
  std::array<long long, 3> maxComputeWorkGroupCount{};
  int maxComputeWorkGroupInvocations = 0;
  int maxComputeSharedMemoryBytes = 0;
  long long maxShaderStorageBlockBytes = 0;
  int maxShaderStorageBufferBindings = 0;
  int maxComputeShaderStorageBlocks = 0;
  int multiprocessors = 0;  // GL_SM_COUNT_NV where the driver says (NVIDIA); 0: unknown
  // All of the GPU's video memory where the driver says (GL_NVX_gpu_memory_info's dedicated
  // memory: the same on every GPU of a kind, unlike the free memory); 0: unknown.
  double memoryBytes = 0.0;
  // The loop iterations an invocation runs in all before the driver stops its loops, silently:
  // Mesa's llvmpipe 65535 (gallivm's loop limiter); 0: no such limit known.
  long long mostLoopIterations = 0;
  // Invocations per subgroup where compute shaders have GL_KHR_shader_subgroup's basic and
  // arithmetic operations; 0 where they do not.
  int computeSubgroupSize = 0;
  std::vector<std::string> extensions;

  bool supports(int major, int minor) const {
    return versionMajor > major || (versionMajor == major && versionMinor >= minor);
  }
  bool hasExtension(std::string_view name) const;
  // Free video memory where the driver says (GL_NVX_gpu_memory_info); nothing elsewhere. Asked
  // anew on every call: it changes as textures come and go.
  std::optional<double> availableMemoryBytes() const;
};

// The limits of the current context. Queried on first use after a context was made and kept
// until the next one is (HeadlessContext and WindowContext call forgetLimits()).
const Limits& limits();
void forgetLimits();
// Tests: the current context's limits as a GPU that offers less gives them (the paths only such a
// GPU takes), until forgetLimits.
void replaceLimits(const Limits& lowered);

}  // namespace nbody::gl
