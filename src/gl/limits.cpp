#include "gl/limits.h"

#include <algorithm>
#include <cstdlib>

#include <glad/gl.h>

#include "gl/level.h"

namespace nbody::gl {
namespace {

constexpr GLenum kSmCountNv = 0x933B;  // GL_SM_COUNT_NV (GL_NV_shader_thread_group)
constexpr GLenum kAvailableKilobytesNvx =
    0x9049;  // GL_GPU_MEMORY_INFO_CURRENT_AVAILABLE_VIDMEM_NVX
constexpr GLenum kDedicatedKilobytesNvx = 0x9047;  // GL_GPU_MEMORY_INFO_DEDICATED_VIDMEM_NVX

int integer(GLenum name) {
  GLint value = 0;
  glGetIntegerv(name, &value);
  return value;
}

std::vector<std::string> queryExtensions() {
  std::vector<std::string> names;
  const int count = integer(GL_NUM_EXTENSIONS);
  for (int k = 0; k < count; ++k)
    names.emplace_back(reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, GLuint(k))));
  return names;
}

// Compute shaders and shader storage are OpenGL 4.3's: a build whose loader stops at 4.1
// (gl/level.h) asks for none of their limits, which stay 0.
#if defined(GL_VERSION_4_3)
// GL_KHR_shader_subgroup (not in glad's core profile): the subgroup size, the stages and the
// features, and the bits this code asks for among them.
constexpr GLenum kSubgroupSizeKhr = 0x9532, kSubgroupStagesKhr = 0x9533,
                 kSubgroupFeaturesKhr = 0x9534;
constexpr GLint kSubgroupBasicAndArithmetic = 0x1 | 0x4;

// Subgroup arithmetic in compute shaders (NVIDIA offers it; Mesa's llvmpipe does not, in OpenGL).
int computeSubgroupSize(const Limits& limits) {
  if (!limits.hasExtension("GL_KHR_shader_subgroup")) return 0;
  const bool inCompute = (integer(kSubgroupStagesKhr) & GL_COMPUTE_SHADER_BIT) != 0;
  const bool arithmetic =
      (integer(kSubgroupFeaturesKhr) & kSubgroupBasicAndArithmetic) == kSubgroupBasicAndArithmetic;
  return inCompute && arithmetic ? std::max(0, integer(kSubgroupSizeKhr)) : 0;
}

void queryCompute(Limits& limits) {
  for (GLuint axis = 0; axis < 3; ++axis) {
    GLint count = 0;
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, axis, &count);
    limits.maxComputeWorkGroupCount[axis] = count;
  }
  limits.maxComputeWorkGroupInvocations = integer(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS);
  limits.maxComputeSharedMemoryBytes = integer(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE);
  limits.maxComputeTextureUnits = integer(GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS);
  limits.maxComputeImageUnits = integer(GL_MAX_COMPUTE_IMAGE_UNIFORMS);
  GLint64 storageBlock = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &storageBlock);
  limits.maxShaderStorageBlockBytes = storageBlock;
  limits.maxShaderStorageBufferBindings = integer(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS);
  limits.maxComputeShaderStorageBlocks = integer(GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS);
  limits.computeSubgroupSize = computeSubgroupSize(limits);
}
#endif

// GL_MAX_TEXTURE_SIZE, or less where NBODY_LARGEST_TEXTURE asks: tests meet what a run past the
// largest texture meets with a few thousand bodies.
int largestTexture() {
  const int offered = integer(GL_MAX_TEXTURE_SIZE);
  const char* asked = std::getenv("NBODY_LARGEST_TEXTURE");
  const int lowered = asked ? std::atoi(asked) : 0;
  return lowered > 0 ? std::min(offered, lowered) : offered;
}

// llvmpipe's gallivm stops every loop of an invocation once it has run 65535 iterations in all
// (LP_MAX_TGSI_LOOP_ITERATIONS; docs/tree-gravity.md).
long long loopLimitOf(const GLubyte* renderer) {
  constexpr long long kLlvmpipeLoopIterations = 65535;
  const std::string_view name = renderer ? reinterpret_cast<const char*>(renderer) : "";
  return name.find("llvmpipe") != std::string_view::npos ? kLlvmpipeLoopIterations : 0;
}

Limits query() {
  Limits limits;
  limits.versionMajor = integer(GL_MAJOR_VERSION);
  limits.versionMinor = integer(GL_MINOR_VERSION);
  // A context kept to the GL 4.1 / ES 3.0 subset counts as 4.1 (gl/level.h).
  const GlTarget& target = glTarget();
  if (target.level == ApiLevel::bindToEdit && limits.supports(target.major, target.minor)) {
    limits.versionMajor = target.major;
    limits.versionMinor = target.minor;
  }
  limits.maxTextureSize = largestTexture();
  limits.maxDrawBuffers = integer(GL_MAX_DRAW_BUFFERS);
  limits.maxColorAttachments = integer(GL_MAX_COLOR_ATTACHMENTS);
  limits.maxFragmentTextureUnits = integer(GL_MAX_TEXTURE_IMAGE_UNITS);
  limits.extensions = queryExtensions();
#if defined(GL_VERSION_4_3)
  if (limits.supports(4, 3)) queryCompute(limits);
#endif
  if (limits.hasExtension("GL_NV_shader_thread_group"))
    limits.multiprocessors = std::max(0, integer(kSmCountNv));
  if (limits.hasExtension("GL_NVX_gpu_memory_info"))
    limits.memoryBytes = double(integer(kDedicatedKilobytesNvx)) * 1024.0;
  limits.mostLoopIterations = loopLimitOf(glGetString(GL_RENDERER));
  return limits;
}

std::optional<Limits>& cached() {
  static std::optional<Limits> limits;
  return limits;
}

}  // namespace

bool Limits::hasExtension(std::string_view name) const {
  return std::find(extensions.begin(), extensions.end(), name) != extensions.end();
}

std::optional<double> Limits::availableMemoryBytes() const {
  if (!hasExtension("GL_NVX_gpu_memory_info")) return std::nullopt;
  return double(integer(kAvailableKilobytesNvx)) * 1024.0;
}

const Limits& limits() {
  if (!cached()) cached() = query();
  return *cached();
}

void replaceLimits(const Limits& lowered) { cached() = lowered; }

void forgetLimits() {
  cached().reset();
  forgetGlTarget();
}

}  // namespace nbody::gl
