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

// shaders/diagnostics.comp's quantities: m v (3), m, m r x v (3), 1/2 m v^2, m r (3), and
// -1/2 m phi; each summed in kDigits digits of kDigitBits bits.
constexpr int kQuantities = 12, kPotentialQuantity = 11, kDigits = 5, kDigitBits = 24;

// struct Digits of shaders/diagnostics.comp in std430 layout.
struct GpuDigits {
  std::array<double, kQuantities * kDigits> digit;
};
static_assert(sizeof(GpuDigits) == 480);

constexpr GLuint kOutputBinding = 0, kInputBinding = 1, kScalesBinding = 2, kPotentialsBinding = 3;
constexpr int kPositionMassUnit = 0, kVelocityUnit = 1;

enum class Pass { scales = 0, digits = 1, partialSums = 2, potentials = 3 };

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

// Where each quantity's terms go in its sum: a term's lowest significand bit at 2^(its exponent
// field + offset), so that the largest term, below 2^(field - 1022), times the count of terms
// stays below 2^(kDigits kDigitBits).
std::array<GLint, kQuantities> offsetsFor(const std::array<GLuint, kQuantities>& largestFields,
                                          std::size_t bodies) {
  const int headroom = int(std::bit_width(bodies));  // bodies < 2^headroom
  std::array<GLint, kQuantities> offsets{};
  for (std::size_t q = 0; q < offsets.size(); ++q)
    offsets[q] = kDigits * kDigitBits - 53 - headroom - GLint(largestFields[q]);
  return offsets;
}

// Quantity q's exact sum: its digits, each an integer, weighted back: a unit of the sum is
// 2^-(1075 + offset) (the significand's bit 0 at field 1 is 2^-1074).
double quantityValue(const GpuDigits& sums, std::size_t q, GLint offset) {
  ExactSum sum;
  for (int k = 0; k < kDigits; ++k)
    sum.add(std::ldexp(sums.digit[q * kDigits + std::size_t(k)],
                       (kDigits - 1 - k) * kDigitBits - 1075 - offset));
  return sum.value();
}

Diagnostics fromDigits(const GpuDigits& sums, const std::array<GLint, kQuantities>& offsets,
                       double gravity) {
  std::array<double, kQuantities> value{};
  for (std::size_t q = 0; q < value.size(); ++q) value[q] = quantityValue(sums, q, offsets[q]);
  Diagnostics d;
  d.momentum = glm::dvec3(value[0], value[1], value[2]);
  d.mass = value[3];
  d.angularMomentum = glm::dvec3(value[4], value[5], value[6]);
  d.kinetic = value[7];
  d.centreOfMass =
      d.mass > 0.0 ? glm::dvec3(value[8], value[9], value[10]) / d.mass : glm::dvec3(0.0);
  d.potential = gravity * value[kPotentialQuantity];
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
  potentials_ = buildPass(shape.groupSize, Pass::potentials);
  scales_ = buildPass(shape.groupSize, Pass::scales);
  bodyDigits_ = buildPass(shape.groupSize, Pass::digits);
  sumPartials_ = buildPass(shape.groupSize, Pass::partialSums);
  for (const gl::UniformProgram* program : {&potentials_, &scales_, &bodyDigits_}) {
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

// phi_i of every body into the potentials' buffer: the O(N^2) pass.
void GpuDiagnostics::sumPotentials(const GpuStateView& state) {
  if (state.bodyCount > potentialCapacity_) {
    potentialsBuffer_ = gl::Buffer::create();
    glNamedBufferStorage(potentialsBuffer_.id(), GLsizeiptr(state.bodyCount * sizeof(double)),
                         nullptr, 0);
    potentialCapacity_ = state.bodyCount;
  }
  glUseProgram(potentials_.id());
  setCount(potentials_, state.bodyCount, 1);
  setStateUniforms(potentials_, state, true);
  glDispatchCompute(
      GLuint((state.bodyCount + std::size_t(shape_.groupSize) - 1) / std::size_t(shape_.groupSize)),
      1, 1);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
}

// The largest exponent field of each quantity's terms (0: no nonzero term).
std::array<GLuint, 12> GpuDiagnostics::largestExponents(const GpuStateView& state,
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
  if (potentialsBuffer_.id())
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kPotentialsBinding, potentialsBuffer_.id());
}

Diagnostics GpuDiagnostics::measure(const GpuStateView& state, const StepParams& params,
                                    bool pairPotential) {
  if (state.bodyCount == 0) return {};
  softening2_ = params.softening * params.softening;
  if (pairPotential) sumPotentials(state);
  const std::array<GLint, kQuantities> offsets =
      offsetsFor(largestExponents(state, pairPotential), state.bodyCount);
  std::size_t elementsPerInvocation = 1;
  std::size_t count = groupsFor(state.bodyCount, elementsPerInvocation);
  reserve(count);
  glUseProgram(bodyDigits_.id());
  setCount(bodyDigits_, state.bodyCount, elementsPerInvocation);
  setStateUniforms(bodyDigits_, state, pairPotential);
  bodyDigits_.setInts("uOffset", offsets);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kOutputBinding, partials_[0].id());
  glDispatchCompute(GLuint(count), 1, 1);
  lastPassCount_ = 1;
  const int current = sumPartials(count);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  GpuDigits sums{};
  glGetNamedBufferSubData(partials_[current].id(), 0, sizeof sums, &sums);
  glUseProgram(0);  // nothing of ours stays current: deleting these passes never leaves a deleted
                    // program bound
  return fromDigits(sums, offsets, params.gravity);
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
