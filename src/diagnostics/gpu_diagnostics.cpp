#include "diagnostics/gpu_diagnostics.h"

#include <algorithm>
#include <bit>
#include <glm/vec4.hpp>
#include <stdexcept>
#include <string>

#include "gl/desktop_calls.h"
#include "gl/shader_program.h"

namespace nbody {
namespace {

// struct Sums of shaders/diagnostics.comp in std430 layout.
struct GpuSums {
  glm::dvec4 momentumMass;
  glm::dvec4 angularMomentumKinetic;
  glm::dvec4 weightedPositionPotential;
};
static_assert(sizeof(GpuSums) == 96);

constexpr GLuint kOutputBinding = 0, kInputBinding = 1;
constexpr int kPositionMassUnit = 0, kVelocityUnit = 1;

gl::UniformProgram buildPass(int groupSize, bool bodyTerms) {
  return gl::UniformProgram(
      gl::buildProgram({{GL_COMPUTE_SHADER, {"workgroup.glsl", "diagnostics.comp"}}},
                       {{"WORKGROUP_SIZE", groupSize}, {"BODY_TERMS", bodyTerms ? 1 : 0}}));
}

void setCount(const gl::UniformProgram& program, std::size_t count,
              std::size_t elementsPerInvocation) {
  program.setUint("uCount", count);
  program.setUint("uElementsPerInvocation", elementsPerInvocation);
}

Diagnostics fromSums(const GpuSums& sums, double gravity) {
  Diagnostics d;
  d.mass = sums.momentumMass.w;
  d.momentum = glm::dvec3(sums.momentumMass);
  d.angularMomentum = glm::dvec3(sums.angularMomentumKinetic);
  d.kinetic = sums.angularMomentumKinetic.w;
  d.potential = gravity * sums.weightedPositionPotential.w;
  d.centreOfMass =
      d.mass > 0.0 ? glm::dvec3(sums.weightedPositionPotential) / d.mass : glm::dvec3(0.0);
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
  bodyTerms_ = buildPass(shape.groupSize, true);
  sumPartials_ = buildPass(shape.groupSize, false);
  bodyTerms_.setUnit("uPositionMass", kPositionMassUnit);
  bodyTerms_.setUnit("uVelocity", kVelocityUnit);
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
    glNamedBufferStorage(buffer.id(), GLsizeiptr(sums * sizeof(GpuSums)), nullptr, 0);
  }
  capacity_ = sums;
}

Diagnostics GpuDiagnostics::measure(const GpuStateView& state, const StepParams& params,
                                    bool pairPotential) {
  if (state.bodyCount == 0) return {};
  // The body pass: one body per invocation, since each already costs an O(N) potential sum.
  std::size_t elementsPerInvocation = 1;
  std::size_t count = groupsFor(state.bodyCount, elementsPerInvocation);
  reserve(count);
  glUseProgram(bodyTerms_.id());
  setCount(bodyTerms_, state.bodyCount, elementsPerInvocation);
  bodyTerms_.setFloat("uSoftening2", params.softening * params.softening);
  bodyTerms_.setInt("uPairPotential", pairPotential);
  glBindTextureUnit(kPositionMassUnit, state.positionMassTexture);
  glBindTextureUnit(kVelocityUnit, state.velocityTexture);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kOutputBinding, partials_[0].id());
  glDispatchCompute(GLuint(count), 1, 1);
  lastPassCount_ = 1;

  int current = 0;  // partials_[current] holds `count` sums
  glUseProgram(sumPartials_.id());
  while (count > 1) {
    elementsPerInvocation = std::size_t(shape_.elementsPerInvocation);
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
  GpuSums sums{};
  glGetNamedBufferSubData(partials_[current].id(), 0, sizeof sums, &sums);
  glUseProgram(0);  // nothing of ours stays current: deleting these passes never leaves a deleted
                    // program bound
  return fromSums(sums, params.gravity);
}

}  // namespace nbody
