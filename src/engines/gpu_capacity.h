#pragma once
// How many bodies the GPU engines' textures hold on this GPU: refusals that say which limit was
// met and what to change, checked before anything is allocated.

#include <cstddef>
#include <string_view>

#include <glm/vec2.hpp>

#include "gl/limits.h"

namespace nbody {

// The state textures' size for `bodies`; throws std::runtime_error where they would be larger than
// the largest texture (transfers move them in bands of rows: gl/texture_rows.h), its message
// ending with `beyond` where one is given (what goes past it).
glm::ivec2 checkStateTextures(std::size_t bodies, const gl::Limits& limits,
                              std::string_view beyond = {});
// Throws where the stage accelerations of textures of `size`, `accelerationSlices` stacked
// vertically, would be taller than the largest texture.
void checkAccelerationSlicesFit(std::size_t bodies, glm::ivec2 size, int accelerationSlices,
                                const gl::Limits& limits);
// The limits that decide how an engine shares its work among the ranks (the tree's
// `distribute=auto`) must be every rank's alike, or ranks would choose differently and wait for
// ever in collectives the others never make; a rank's GPU may differ (rank 0 of `nbody run` may
// draw and compute on another GPU or driver than the others). agreeLimitsAcrossRanks, a
// collective, takes the least of every rank's largest texture, storage block and memory (of those
// that say; the current contexts'); sharingLimits gives those (the current context's own where
// none were agreed: one process), limitsForSharing the current context's limits with them in
// their place.
struct SharingLimits {
  int maxTextureSize = 0;
  long long maxShaderStorageBlockBytes = 0;
  double memoryBytes = 0.0;  // 0: unknown
  bool operator==(const SharingLimits&) const = default;
};
void agreeLimitsAcrossRanks();
SharingLimits sharingLimits();
gl::Limits limitsForSharing();
// The bytes of a one-stage method's textures of `size` with `accelerationSlices` (base positions
// and velocities, one stage's accelerations with their slices).
double oneStageTextureBytes(glm::ivec2 size, int accelerationSlices);
// Throws where the stage textures for `size` with `accelerationSlices`, and `extraBytes` besides,
// need more than the GPU's free memory (where the driver says, NVIDIA).
void checkGpuMemory(std::size_t bodies, glm::ivec2 size, int accelerationSlices, double extraBytes,
                    const gl::Limits& limits);
// The loop iterations a pass may plan an invocation under the driver's limit
// (gl::Limits::mostLoopIterations, llvmpipe's 65535): an eighth of it is left for the loops a
// shader runs besides its main one; any number where no limit is known.
std::size_t loopIterationsAllowed(long long mostLoopIterations);
// Throws where a pass over `bodies` laid out as `layout` says would loop `iterations` times an
// invocation, past what the driver runs (llvmpipe stops the rest, silently), naming `remedy`.
void checkLoopsRun(std::size_t bodies, std::string_view layout, double iterations,
                   const gl::Limits& limits, std::string_view remedy);

}  // namespace nbody
