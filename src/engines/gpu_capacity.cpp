#include "engines/gpu_capacity.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "engines/stage_textures.h"
#include "parallel/ranks.h"

namespace nbody {
namespace {

std::optional<SharingLimits>& agreedLimits() {
  static std::optional<SharingLimits> agreed;
  return agreed;
}

}  // namespace

void agreeLimitsAcrossRanks() {
  if (!ranks().distributed()) return;
  const gl::Limits& own = gl::limits();
  constexpr std::int64_t kUnknown = std::numeric_limits<std::int64_t>::max();
  // The least of each, as the largest of its negation.
  std::array<std::int64_t, 3> least{
      -std::int64_t(own.maxTextureSize), -std::int64_t(own.maxShaderStorageBlockBytes),
      -(own.memoryBytes > 0.0 ? std::int64_t(own.memoryBytes) : kUnknown)};
  ranks().maximum(least);
  agreedLimits() =
      SharingLimits{int(-least[0]), -least[1], least[2] == -kUnknown ? 0.0 : double(-least[2])};
}

SharingLimits sharingLimits() {
  if (const std::optional<SharingLimits>& agreed = agreedLimits()) return *agreed;
  const gl::Limits& own = gl::limits();
  return {own.maxTextureSize, own.maxShaderStorageBlockBytes, own.memoryBytes};
}

gl::Limits limitsForSharing() {
  gl::Limits limits = gl::limits();
  const SharingLimits sharing = sharingLimits();
  limits.maxTextureSize = sharing.maxTextureSize;
  limits.maxShaderStorageBlockBytes = sharing.maxShaderStorageBlockBytes;
  limits.memoryBytes = sharing.memoryBytes;
  return limits;
}

glm::ivec2 checkStateTextures(std::size_t bodies, const gl::Limits& limits,
                              std::string_view beyond) {
  const int largest = limits.maxTextureSize;
  glm::ivec2 size;
  try {
    size = StageTextures::sizeFor(bodies, largest);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string(e.what()) + ", the largest this GPU offers (at most " +
                             std::to_string(std::size_t(largest) * std::size_t(largest)) +
                             " bodies)" + (beyond.empty() ? "" : "; ") + std::string(beyond));
  }
  return size;
}

void checkAccelerationSlicesFit(std::size_t bodies, glm::ivec2 size, int accelerationSlices,
                                const gl::Limits& limits) {
  if (std::size_t(size.y) * std::size_t(accelerationSlices) > std::size_t(limits.maxTextureSize))
    throw std::runtime_error(
        std::to_string(bodies) + " bodies in " + std::to_string(accelerationSlices) +
        " slices need acceleration textures " + std::to_string(size.y) + " x " +
        std::to_string(accelerationSlices) + " texels high, over this GPU's " +
        std::to_string(limits.maxTextureSize) + ": choose fewer slices");
}

double oneStageTextureBytes(glm::ivec2 size, int accelerationSlices) {
  return double(size.x) * double(size.y) * 16.0 * (4 + accelerationSlices);
}

void checkGpuMemory(std::size_t bodies, glm::ivec2 size, int accelerationSlices, double extraBytes,
                    const gl::Limits& limits) {
  const std::optional<double> available = limits.availableMemoryBytes();
  if (!available) return;
  // What a one-stage method needs (a method of more stages checks what it adds:
  // StageTextures::reserveStages).
  const double bytes = oneStageTextureBytes(size, accelerationSlices) + extraBytes;
  if (bytes > *available)
    throw std::runtime_error(std::to_string(bodies) + " bodies need about " +
                             std::to_string(std::llround(bytes / 1e9)) +
                             " GB of textures; the GPU has " +
                             std::to_string((long long)(*available / 1e9)) + " GB free");
}

std::size_t loopIterationsAllowed(long long mostLoopIterations) {
  return mostLoopIterations > 0 ? std::size_t(mostLoopIterations - mostLoopIterations / 8)
                                : std::numeric_limits<std::size_t>::max();
}

void checkLoopsRun(std::size_t bodies, std::string_view layout, double iterations,
                   const gl::Limits& limits, std::string_view remedy) {
  if (limits.mostLoopIterations <= 0 ||
      iterations <= double(loopIterationsAllowed(limits.mostLoopIterations)))
    return;
  throw std::runtime_error(
      std::to_string(bodies) + " bodies in " + std::string(layout) + " loop about " +
      std::to_string(std::llround(iterations)) + " times an invocation, past the " +
      std::to_string(limits.mostLoopIterations) +
      " this driver runs (llvmpipe stops the rest, silently): " + std::string(remedy));
}

}  // namespace nbody
