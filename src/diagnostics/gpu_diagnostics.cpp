#include "diagnostics/gpu_diagnostics.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <glm/vec4.hpp>
#include <stdexcept>
#include <string>

#include "gl/desktop_calls.h"
#include "gl/shader_program.h"
#include "util/exact_sum.h"

namespace nbody {
namespace {

// shaders/diagnostics.comp's quantities: m v (3), m, m r x v (3), 1/2 m v^2, m r (3), and the
// potential's pair terms; each summed in kDigits digits of kDigitBits bits.
constexpr int kQuantities = 12, kPairQuantity = 11, kDigits = 5, kDigitBits = 24;
constexpr int kExponentBias = 1100;

// struct Digits of shaders/diagnostics.comp in std430 layout.
struct GpuDigits {
  std::array<double, kQuantities * kDigits> digit;
};
static_assert(sizeof(GpuDigits) == 480);

constexpr GLuint kOutputBinding = 0, kInputBinding = 1, kScalesBinding = 2;
constexpr int kPositionMassUnit = 0, kVelocityUnit = 1;

enum class Pass { scales = 0, digits = 1, partialSums = 2 };

gl::UniformProgram buildPass(int groupSize, Pass pass) {
  return gl::UniformProgram(
      gl::buildProgram({{GL_COMPUTE_SHADER, {"workgroup.glsl", "diagnostics.comp"}}},
                       {{"WORKGROUP_SIZE", groupSize}, {"PASS", int(pass)}}));
}

void setCount(const gl::UniformProgram& program, std::size_t count,
              std::size_t elementsPerInvocation) {
  program.setUint("uCount", count);
  program.setUint("uElementsPerInvocation", elementsPerInvocation);
}

// The power of two each quantity's terms are scaled by: the largest, below 2^exponent, then sits
// below 2^(kDigits kDigitBits) over the count of terms, so that their sum does too.
std::array<GLint, kQuantities> shiftsFor(const std::array<GLuint, kQuantities>& scales,
                                         std::size_t bodies) {
  std::array<GLint, kQuantities> shifts{};
  for (int q = 0; q < kQuantities; ++q) {
    const double terms = q == kPairQuantity ? double(bodies) * double(bodies) : double(bodies);
    const int headroom = int(std::ceil(std::log2(terms + 1.0)));
    const int exponent = scales[q] ? int(scales[q]) - kExponentBias : 0;
    shifts[q] = kDigits * kDigitBits - headroom - exponent;
  }
  return shifts;
}

// Quantity q's exact sum: its digits weighted back by 2^-shift, each an exact double.
double quantityValue(const GpuDigits& sums, int q, GLint shift) {
  ExactSum sum;
  for (int k = 0; k < kDigits; ++k)
    sum.add(std::ldexp(sums.digit[std::size_t(q * kDigits + k)],
                       (kDigits - 1 - k) * kDigitBits - shift));
  return sum.value();
}

Diagnostics fromDigits(const GpuDigits& sums, const std::array<GLint, kQuantities>& shifts,
                       double gravity) {
  std::array<double, kQuantities> value{};
  for (int q = 0; q < kQuantities; ++q) value[std::size_t(q)] = quantityValue(sums, q, shifts[q]);
  Diagnostics d;
  d.momentum = glm::dvec3(value[0], value[1], value[2]);
  d.mass = value[3];
  d.angularMomentum = glm::dvec3(value[4], value[5], value[6]);
  d.kinetic = value[7];
  d.centreOfMass =
      d.mass > 0.0 ? glm::dvec3(value[8], value[9], value[10]) / d.mass : glm::dvec3(0.0);
  d.potential = -0.5 * gravity * value[kPairQuantity];
  return d;
}

}  // namespace

GpuDiagnostics::GpuDiagnostics(ReductionShape shape) : shape_(shape) {
  if (shape.groupSize < 1 || !std::has_single_bit(unsigned(shape.groupSize)) ||
      shape.elementsPerInvocation < 1)
    throw std::invalid_argument(
        "GpuDiagnostics: the group size must be a power of two and each "
        "invocation must sum at least one element");
  GLint maxGroupSize = 0, maxGroups = 0;
  glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, 0, &maxGroupSize);
  glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &maxGroups);
  if (shape.groupSize > maxGroupSize)
    throw std::runtime_error("diagnostics need compute workgroups of " +
                             std::to_string(shape.groupSize) + " invocations; this GPU offers " +
                             std::to_string(maxGroupSize));
  maxGroups_ = std::size_t(maxGroups);
  scales_ = buildPass(shape.groupSize, Pass::scales);
  bodyDigits_ = buildPass(shape.groupSize, Pass::digits);
  sumPartials_ = buildPass(shape.groupSize, Pass::partialSums);
  for (const gl::UniformProgram* program : {&scales_, &bodyDigits_}) {
    program->setUnit("uPositionMass", kPositionMassUnit);
    program->setUnit("uVelocity", kVelocityUnit);
  }
  scalesBuffer_ = gl::Buffer::create();
  glNamedBufferStorage(scalesBuffer_.id(), kQuantities * sizeof(GLuint), nullptr,
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

void GpuDiagnostics::reserve(std::size_t sums) {
  if (sums <= capacity_) return;
  for (gl::Buffer& buffer : partials_) {
    buffer = gl::Buffer::create();
    glNamedBufferStorage(buffer.id(), GLsizeiptr(sums * sizeof(GpuDigits)), nullptr, 0);
  }
  capacity_ = sums;
}

// The largest exponent of each quantity's terms, biased (0: no nonzero term).
std::array<GLuint, kQuantities> GpuDiagnostics::largestExponents(const GpuStateView& state,
                                                                 bool pairPotential) {
  const std::array<GLuint, kQuantities> none{};
  glNamedBufferSubData(scalesBuffer_.id(), 0, sizeof none, none.data());
  std::size_t elementsPerInvocation = 1;
  const std::size_t groups = groupsFor(state.bodyCount, elementsPerInvocation);
  glUseProgram(scales_.id());
  setCount(scales_, state.bodyCount, elementsPerInvocation);
  setStateUniforms(scales_, state, pairPotential);
  glDispatchCompute(GLuint(groups), 1, 1);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  std::array<GLuint, kQuantities> scales{};
  glGetNamedBufferSubData(scalesBuffer_.id(), 0, sizeof scales, scales.data());
  return scales;
}

void GpuDiagnostics::setStateUniforms(const gl::UniformProgram& program, const GpuStateView& state,
                                      bool pairPotential) const {
  program.setFloat("uSoftening2", softening2_);
  program.setInt("uPairPotential", pairPotential);
  glBindTextureUnit(kPositionMassUnit, state.positionMassTexture);
  glBindTextureUnit(kVelocityUnit, state.velocityTexture);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kScalesBinding, scalesBuffer_.id());
}

Diagnostics GpuDiagnostics::measure(const GpuStateView& state, const StepParams& params,
                                    bool pairPotential) {
  if (state.bodyCount == 0) return {};
  softening2_ = params.softening * params.softening;
  const std::array<GLint, kQuantities> shifts =
      shiftsFor(largestExponents(state, pairPotential), state.bodyCount);
  // The digits' pass: one body per invocation, since each may cost an O(N) potential sum.
  std::size_t elementsPerInvocation = 1;
  std::size_t count = groupsFor(state.bodyCount, elementsPerInvocation);
  reserve(count);
  glUseProgram(bodyDigits_.id());
  setCount(bodyDigits_, state.bodyCount, elementsPerInvocation);
  setStateUniforms(bodyDigits_, state, pairPotential);
  bodyDigits_.setInts("uShift", shifts);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kOutputBinding, partials_[0].id());
  glDispatchCompute(GLuint(count), 1, 1);
  lastPassCount_ = 1;
  const int current = sumPartials(count);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  GpuDigits sums{};
  glGetNamedBufferSubData(partials_[current].id(), 0, sizeof sums, &sums);
  glUseProgram(0);  // nothing of ours stays current: deleting these passes never leaves a deleted
                    // program bound
  return fromDigits(sums, shifts, params.gravity);
}

// Sums the `count` partial sums in partials_[0] until one remains; returns the buffer that holds
// it.
int GpuDiagnostics::sumPartials(std::size_t count) {
  int current = 0;
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
  return current;
}

}  // namespace nbody
