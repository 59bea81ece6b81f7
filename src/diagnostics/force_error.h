#pragma once
// How far an engine's accelerations are from direct summation in double precision: the relative
// force error |a - a_ref| / |a_ref| per body, and its percentiles. The reference is summed on the
// GPU (shaders/force_reference.comp, GLSL doubles) over all N bodies for each sampled body: every
// body up to kAllBodiesUpTo, above that kSampledBodies bodies drawn at random (seeded) without
// repetition. Used for every engine by the accuracy report and bench, and by the tree's tests.
// Its order is fixed whatever cuts the bodies: blocks of kReferenceBlock bodies by index, each
// summed in index order, and the blocks' sums added in order (every judged body and block a thread
// of its own: a few judged bodies keep the whole GPU busy).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "gl/objects.h"
#include "gl/shader_program.h"
#include "physics/state.h"

namespace nbody {

inline constexpr std::size_t kAllBodiesUpTo = 65536;
// The bodies of a block of the reference's sums: a divisor of any piece ReferenceSum is given.
inline constexpr std::size_t kReferenceBlock = 1024;
inline constexpr std::size_t kSampledBodies = 65536;

struct ForceErrorPercentiles {
  double median = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
  std::size_t samples = 0;
};

// The bodies judged: 0..N-1 when N <= allUpTo, else `sampled` distinct indices drawn with `seed`,
// ascending.
std::vector<std::uint32_t> forceErrorSamples(std::size_t bodyCount, std::uint64_t seed = 1,
                                             std::size_t allUpTo = kAllBodiesUpTo,
                                             std::size_t sampled = kSampledBodies);

// G sum_{j != i} m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2) in double on the GPU for each
// body i of `bodies`, from the float32 positions and masses in `positionMass` (RGBA32F, body i at
// texel (i % size.x, i / size.x)); pairs at distance 0 add 0, as in the engines. Also returns, in
// `judged` when given, layer 0 of `accelerationArray` at those bodies. Needs a current OpenGL 4.3+
// context; reads back only the sampled values.
std::vector<glm::dvec3> referenceAccelerations(unsigned int positionMass, glm::ivec2 size,
                                               std::size_t bodyCount, const StepParams& params,
                                               const std::vector<std::uint32_t>& bodies,
                                               unsigned int accelerationArray = 0,
                                               std::vector<glm::dvec3>* judged = nullptr);

struct ReferencePrograms;

// referenceAccelerations' sums at given float32 positions (the judged bodies': the masses are not
// read), over the bodies j given piece by piece in index order (add), each piece a whole number of
// blocks but the last: bit for bit referenceAccelerations' over the same bodies in one texture,
// however they are cut. Needs a current OpenGL 4.3+ context.
class ReferenceSum {
 public:
  ReferenceSum(std::span<const glm::vec4> positions, const StepParams& params);
  ~ReferenceSum();
  // The next `count` bodies j, texels 0.. of `positionMass` (RGBA32F, the state's layout). Throws
  // std::logic_error after a piece that ended inside a block.
  void add(unsigned int positionMass, std::size_t count);
  std::vector<glm::dvec3> result() const;  // waits for the GPU

 private:
  std::unique_ptr<ReferencePrograms> programs_;
  gl::Buffer positions_, reference_;
  std::size_t samples_ = 0;
  double gravity_ = 1.0;
  bool added_ = false, endedInABlock_ = false;
};

// Percentiles (linear interpolation between order statistics) of the relative errors. A body
// whose reference is exactly zero counts 0 if its acceleration is zero too, else infinity;
// NaN counts as infinity.
ForceErrorPercentiles percentilesOf(std::vector<double> relativeErrors);
std::vector<double> relativeErrors(const std::vector<glm::dvec3>& accelerations,
                                   const std::vector<glm::dvec3>& references);

// The whole report for the accelerations in layer 0 of `accelerationArray` (RGBA32F
// GL_TEXTURE_2D_ARRAY, the state's layout).
ForceErrorPercentiles forceErrorPercentiles(unsigned int positionMass, glm::ivec2 size,
                                            std::size_t bodyCount, const StepParams& params,
                                            unsigned int accelerationArray, std::uint64_t seed = 1);

}  // namespace nbody
