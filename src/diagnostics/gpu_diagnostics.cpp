#include "diagnostics/gpu_diagnostics.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <glm/vec3.hpp>
#include <limits>
#include <stdexcept>
#include <string>

#include "gl/desktop_calls.h"
#include "gl/shader_program.h"

namespace nbody {
namespace {

// shaders/diagnostics.comp's quantities, in its order, each a 128-bit integer (four words, the
// lowest first) in units of 2^-95 of the power of two above its largest term.
constexpr std::size_t kQuantities = 12;
using FixedSum = std::array<std::uint32_t, 4>;
using FixedSums = std::array<FixedSum, kQuantities>;
constexpr std::size_t kSumsBytes = sizeof(FixedSums);
static_assert(kSumsBytes == 192);

constexpr GLuint kOutputBinding = 0, kInputBinding = 1, kPotentialBinding = 2, kExponentBinding = 3;
constexpr int kPositionMassUnit = 0, kVelocityUnit = 1;
constexpr std::uint32_t kNotFinite = 2047;  // a biased exponent: some term was not finite

enum class Stage { exponents = 0, bodySums = 1, partialSums = 2, pairSums = 3 };

// The CPU waits for the GPU once this many pair terms are queued (about 0.1 s on an H200): NVIDIA's
// driver may drop work queued for seconds without a wait, silently (the potential's check at 4.2M
// bodies, one dispatch of ~20 s, came out as -2.2e278 once: performance-history round 38).
constexpr double kPairTermsPerWait = 0x1p36;

gl::UniformProgram buildPass(int groupSize, Stage stage) {
  gl::UniformProgram program(
      gl::buildProgram({{GL_COMPUTE_SHADER, {"workgroup.glsl", "diagnostics.comp"}}},
                       {{"WORKGROUP_SIZE", groupSize}, {"STAGE", int(stage)}}));
  if (stage != Stage::partialSums) {
    program.setUnit("uPositionMass", kPositionMassUnit);
    program.setUnit("uVelocity", kVelocityUnit);
  }
  return program;
}

void setCount(const gl::UniformProgram& program, std::size_t count,
              std::size_t elementsPerInvocation) {
  program.setUint("uCount", count);
  program.setUint("uElementsPerInvocation", elementsPerInvocation);
}

// The sum's words times their unit, rounded once to a double (NaN where a term was not finite).
double valueOf(const FixedSum& words, std::uint32_t largest) {
  if (largest == kNotFinite) return std::numeric_limits<double>::quiet_NaN();
  __extension__ using Int128 = __int128;
  __extension__ using UInt128 = unsigned __int128;
  UInt128 bits = 0;
  for (std::size_t w = 4; w-- > 0;) bits = bits << 32 | words[w];
  // libgcc rounds a 128-bit integer to the nearest double, ties to even.
  return std::ldexp(double(Int128(bits)), int(std::max(largest, 1u)) - 1075 - 42);
}

Diagnostics fromSums(const FixedSums& sums, const std::array<std::uint32_t, kQuantities>& largest,
                     double gravity) {
  std::array<double, kQuantities> q{};
  for (std::size_t k = 0; k < kQuantities; ++k) q[k] = valueOf(sums[k], largest[k]);
  Diagnostics d;
  d.momentum = glm::dvec3(q[0], q[1], q[2]);
  d.mass = q[3];
  d.angularMomentum = glm::dvec3(q[4], q[5], q[6]);
  d.kinetic = q[7];
  d.potential = gravity * q[11];
  d.centreOfMass = d.mass > 0.0 ? glm::dvec3(q[8], q[9], q[10]) / d.mass : glm::dvec3(0.0);
  return d;
}

}  // namespace

GpuDiagnostics::GpuDiagnostics(ReductionShape shape) : shape_(shape) {
  if (shape.groupSize < 1 || !std::has_single_bit(unsigned(shape.groupSize)) ||
      shape.elementsPerInvocation < 1 || shape.pairChunkTexels < 1)
    throw std::invalid_argument(
        "GpuDiagnostics: the group size must be a power of two and each "
        "invocation must sum at least one element and one texel");
  GLint maxGroupSize = 0, maxGroups = 0;
  glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, 0, &maxGroupSize);
  glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &maxGroups);
  if (shape.groupSize > maxGroupSize)
    throw std::runtime_error("diagnostics need compute workgroups of " +
                             std::to_string(shape.groupSize) + " invocations; this GPU offers " +
                             std::to_string(maxGroupSize));
  maxGroups_ = std::size_t(maxGroups);
  pairSums_ = buildPass(shape.groupSize, Stage::pairSums);
  exponentPass_ = buildPass(shape.groupSize, Stage::exponents);
  bodySums_ = buildPass(shape.groupSize, Stage::bodySums);
  sumPartials_ = buildPass(shape.groupSize, Stage::partialSums);
  exponents_ = gl::Buffer::create();
  glNamedBufferStorage(exponents_.id(), GLsizeiptr(kQuantities * 4), nullptr,
                       GL_DYNAMIC_STORAGE_BIT);
}

// Workgroups for `count` elements. Adds elements per invocation where the count would otherwise
// need more workgroups than one dispatch may have.
std::size_t GpuDiagnostics::groupsFor(std::size_t count, std::size_t& elementsPerInvocation) const {
  const std::size_t groupSize = std::size_t(shape_.groupSize);
  const std::size_t perGroupAtMost = (count + maxGroups_ - 1) / maxGroups_;
  elementsPerInvocation =
      std::max(elementsPerInvocation, (perGroupAtMost + groupSize - 1) / groupSize);
  const std::size_t perGroup = groupSize * elementsPerInvocation;
  return (count + perGroup - 1) / perGroup;
}

void GpuDiagnostics::reserve(std::size_t sums, std::size_t potentialTerms) {
  if (sums > capacity_) {
    for (gl::Buffer& buffer : partials_) {
      buffer = gl::Buffer::create();
      glNamedBufferStorage(buffer.id(), GLsizeiptr(sums * kSumsBytes), nullptr, 0);
    }
    capacity_ = sums;
  }
  if (potentialTerms > potentialCapacity_) {
    potentials_ = gl::Buffer::create();
    glNamedBufferStorage(potentials_.id(), GLsizeiptr(potentialTerms * 8), nullptr, 0);
    potentialCapacity_ = potentialTerms;
  }
}

namespace {

// Each quantity's largest exponent over every rank's bodies: an integer maximum.
void foldExponents(std::array<std::uint32_t, kQuantities>& largest, const Ranks& ranks) {
  std::array<std::int64_t, kQuantities> folded{};
  std::copy(largest.begin(), largest.end(), folded.begin());
  ranks.maximum(folded);
  std::copy(folded.begin(), folded.end(), largest.begin());
}

// Every rank's 128-bit sums added, modulo 2^128 as two's complement adds: each word summed across
// ranks as an integer, then the words' carries taken on.
FixedSums summedAcross(const FixedSums& sums, const Ranks& ranks) {
  std::array<std::int64_t, kQuantities * 4> words{};
  for (std::size_t q = 0; q < kQuantities; ++q)
    for (std::size_t w = 0; w < 4; ++w) words[4 * q + w] = sums[q][w];
  ranks.sum(words);
  __extension__ using UInt128 = unsigned __int128;
  FixedSums total{};
  for (std::size_t q = 0; q < kQuantities; ++q) {
    UInt128 value = 0;
    for (std::size_t w = 0; w < 4; ++w)
      value += UInt128(std::uint64_t(words[4 * q + w])) << (32 * w);
    for (std::size_t w = 0; w < 4; ++w) total[q][w] = std::uint32_t(value >> (32 * w));
  }
  return total;
}

}  // namespace

struct GpuDiagnostics::Sums {
  FixedSums sums{};
  std::array<std::uint32_t, kQuantities> largest{};
};

// One of the passes over the bodies: `groups` workgroups of `perInvocation` bodies an invocation.
void GpuDiagnostics::dispatchBodyPass(const gl::UniformProgram& program, std::size_t bodies,
                                      std::size_t perInvocation, std::size_t groups,
                                      const StepParams& params, bool pairPotential) const {
  glUseProgram(program.id());
  setCount(program, bodies, perInvocation);
  program.setFloat("uSoftening2", params.softening * params.softening);
  program.setInt("uPairPotential", pairPotential);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
  glDispatchCompute(GLuint(groups), 1, 1);
}

// Each body's pair sum into potentials_, one body an invocation (each costs O(N)), a chunk of the
// texels a dispatch, each dispatch adding to what the one before left; the CPU waits for the GPU
// every kPairTermsPerWait terms queued.
void GpuDiagnostics::sumPairs(const GpuStateView& state, const StepParams& params) {
  std::size_t perInvocation = 1;
  const std::size_t groups = groupsFor(state.bodyCount, perInvocation);
  // An invocation's loops run perInvocation x chunk iterations.
  const std::size_t chunk =
      std::max<std::size_t>(1, std::size_t(shape_.pairChunkTexels) / perInvocation);
  const std::size_t texels = std::size_t(state.size.x) * std::size_t(state.size.y);
  double queued = 0.0;
  for (std::size_t first = 0; first < texels; first += chunk) {
    pairSums_.setUint("uFirstTexel", first);
    pairSums_.setUint("uEndTexel", std::min(first + chunk, texels));
    pairSums_.setInt("uContinue", first > 0);
    dispatchBodyPass(pairSums_, state.bodyCount, perInvocation, groups, params, true);
    ++lastPassCount_;
    queued += double(state.bodyCount) * double(std::min(chunk, texels - first));
    if (queued >= kPairTermsPerWait) {
      glFinish();
      queued = 0.0;
    }
  }
}

// The body passes: the quantities' exponents (with each body's pair sum first, where asked),
// folded across `ranks` where given, then the bodies' sums per workgroup into partials_[0].
// Returns their count.
std::size_t GpuDiagnostics::sumBodies(const GpuStateView& state, const StepParams& params,
                                      bool pairPotential, const Ranks* ranks) {
  std::size_t one = 1, elementsPerInvocation = std::size_t(shape_.elementsPerInvocation);
  const std::size_t exponentGroups = groupsFor(state.bodyCount, one);
  const std::size_t sumGroups = groupsFor(state.bodyCount, elementsPerInvocation);
  reserve(sumGroups, pairPotential ? state.bodyCount : 1);
  const GLuint zero = 0;
  glClearNamedBufferData(exponents_.id(), GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
  glBindTextureUnit(kPositionMassUnit, state.positionMassTexture);
  glBindTextureUnit(kVelocityUnit, state.velocityTexture);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kPotentialBinding, potentials_.id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kExponentBinding, exponents_.id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kOutputBinding, partials_[0].id());
  lastPassCount_ = 2;
  if (pairPotential) sumPairs(state, params);
  dispatchBodyPass(exponentPass_, state.bodyCount, one, exponentGroups, params, pairPotential);
  if (ranks) {
    std::array<std::uint32_t, kQuantities> largest{};
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(exponents_.id(), 0, sizeof largest, largest.data());
    foldExponents(largest, *ranks);
    glNamedBufferSubData(exponents_.id(), 0, sizeof largest, largest.data());
  }
  dispatchBodyPass(bodySums_, state.bodyCount, elementsPerInvocation, sumGroups, params,
                   pairPotential);
  return sumGroups;
}

GpuDiagnostics::Sums GpuDiagnostics::sumsOf(const GpuStateView& state, const StepParams& params,
                                            bool pairPotential, const Ranks* ranks) {
  std::size_t count = sumBodies(state, params, pairPotential, ranks);
  int current = 0;  // partials_[current] holds `count` sums
  glUseProgram(sumPartials_.id());
  while (count > 1) {
    std::size_t elementsPerInvocation = std::size_t(shape_.elementsPerInvocation);
    const std::size_t groups = groupsFor(count, elementsPerInvocation);
    setCount(sumPartials_, count, elementsPerInvocation);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kInputBinding, partials_[current].id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kOutputBinding, partials_[1 - current].id());
    glDispatchCompute(GLuint(groups), 1, 1);
    count = groups;
    current = 1 - current;
    ++lastPassCount_;
  }
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  Sums sums;
  glGetNamedBufferSubData(partials_[current].id(), 0, kSumsBytes, sums.sums.data());
  glGetNamedBufferSubData(exponents_.id(), 0, sizeof sums.largest, sums.largest.data());
  glUseProgram(0);  // nothing of ours stays current: deleting these passes never leaves a deleted
                    // program bound
  return sums;
}

Diagnostics GpuDiagnostics::measure(const GpuStateView& state, const StepParams& params,
                                    bool pairPotential) {
  if (state.bodyCount == 0) return {};
  const Sums sums = sumsOf(state, params, pairPotential, nullptr);
  return fromSums(sums.sums, sums.largest, params.gravity);
}

Diagnostics GpuDiagnostics::measureAcross(const GpuStateView& state, const StepParams& params,
                                          const Ranks& ranks) {
  Sums sums;  // a rank without bodies adds zeros, after the same collectives
  if (state.bodyCount > 0)
    sums = sumsOf(state, params, false, &ranks);
  else
    foldExponents(sums.largest, ranks);
  return fromSums(summedAcross(sums.sums, ranks), sums.largest, params.gravity);
}

}  // namespace nbody
