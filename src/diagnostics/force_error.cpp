#include "diagnostics/force_error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <unordered_set>

#include <glm/geometric.hpp>
#include <glm/vec4.hpp>

#include "gl/desktop_calls.h"
#include "gl/shader_program.h"

namespace nbody {

// The reference's two programs (force_reference.comp): the blocks' sums, and their addition.
struct ReferencePrograms {
  gl::UniformProgram blocks, combine;
  gl::Buffer blockSums;
  std::size_t samples = 0, blocksPerDispatch = 1;
};

namespace {

constexpr int kPositionUnit = 0, kAccelerationUnit = 1;
constexpr std::size_t kThreads = 256;  // local_size_x of force_reference.comp

gl::Buffer bufferOf(std::size_t bytes, const void* data) {
  gl::Buffer buffer = gl::Buffer::create();
  glNamedBufferStorage(buffer.id(), GLsizeiptr(std::max<std::size_t>(bytes, 16)), nullptr,
                       GL_DYNAMIC_STORAGE_BIT);
  if (data) glNamedBufferSubData(buffer.id(), 0, GLsizeiptr(bytes), data);
  return buffer;
}

// What one dispatch of the reference's blocks takes on: at most this many pair terms (a fraction
// of a second on an H200; on NVIDIA's driver, GPU work queued for several seconds without the CPU
// waiting for it can be dropped silently, and the context then runs nothing more:
// docs/performance-history.md), and at most this many blocks, which pass 1 adds one by one (Mesa's
// llvmpipe stops every loop of an invocation once it has run 65535 iterations in all, silently:
// docs/tree-gravity.md). The CPU waits for the GPU after each.
constexpr std::uint64_t kTermsPerDispatch = std::uint64_t(1) << 31;
constexpr std::size_t kMostBlocksPerDispatch = 16384;

// The blocks one dispatch sums for `samples` judged bodies.
std::size_t blocksPerDispatch(std::size_t samples) {
  const std::uint64_t blocks =
      kTermsPerDispatch / (std::max<std::uint64_t>(samples, 1) * kReferenceBlock);
  return std::size_t(std::clamp<std::uint64_t>(blocks, 1, kMostBlocksPerDispatch));
}

// The bodies [0, bodyCount) of the texture bound, added to the sums so far where `continuing`.
void runBlocks(const ReferencePrograms& programs, std::size_t bodyCount, bool continuing = false) {
  const std::size_t blocks = (bodyCount + kReferenceBlock - 1) / kReferenceBlock;
  const auto groups = GLuint((programs.samples + kThreads - 1) / kThreads);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, programs.blockSums.id());
  for (std::size_t begin = 0; begin < blocks; begin += programs.blocksPerDispatch) {
    const std::size_t count = std::min(programs.blocksPerDispatch, blocks - begin);
    glUseProgram(programs.blocks.id());
    programs.blocks.setUint("uBodyCount", bodyCount);
    programs.blocks.setUint("uBlockBegin", begin);
    glDispatchCompute(groups, GLuint(count), 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUseProgram(programs.combine.id());
    programs.combine.setUint("uBlockCount", count);
    programs.combine.setUint("uContinue", continuing || begin > 0 ? 1 : 0);
    glDispatchCompute(groups, 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glFinish();
  }
  glUseProgram(0);
}

// The reference's sums, read back, times G.
std::vector<glm::dvec3> readReference(GLuint reference, std::size_t samples, double gravity) {
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  std::vector<glm::dvec4> sums(samples);
  glGetNamedBufferSubData(reference, 0, GLsizeiptr(sums.size() * 32), sums.data());
  std::vector<glm::dvec3> result;
  for (const glm::dvec4& sum : sums) result.push_back(gravity * glm::dvec3(sum));
  return result;
}

// NaN until the kernel writes them: results that never arrive (work the driver dropped comes
// back as whatever the memory held) make an error of inf, not a plausible one.
void fillWithNan(GLuint buffer) {
  const GLuint allOnes = ~0u;
  glClearNamedBufferData(buffer, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &allOnes);
}

gl::UniformProgram referencePass(bool givenPositions, bool combine, std::size_t samples,
                                 const StepParams& params) {
  gl::UniformProgram program(
      gl::buildProgram({{GL_COMPUTE_SHADER, {"body_layout.glsl", "force_reference.comp"}}},
                       {{"GIVEN_POSITIONS", givenPositions ? 1 : 0},
                        {"COMBINE", combine ? 1 : 0},
                        {"REFERENCE_BLOCK", int(kReferenceBlock)}}));
  program.setUnit("uPositionMass", kPositionUnit);
  if (!givenPositions) program.setUnit("uAcceleration", kAccelerationUnit);
  program.setUint("uSampleCount", samples);
  program.setDouble("uSoftening2", params.softening * params.softening);
  return program;
}

ReferencePrograms referencePrograms(bool givenPositions, std::size_t samples,
                                    const StepParams& params) {
  ReferencePrograms programs{referencePass(givenPositions, false, samples, params),
                             referencePass(givenPositions, true, samples, params),
                             {},
                             samples,
                             blocksPerDispatch(samples)};
  programs.blockSums = bufferOf(samples * programs.blocksPerDispatch * 32, nullptr);
  return programs;
}

}  // namespace

std::vector<std::uint32_t> forceErrorSamples(std::size_t bodyCount, std::uint64_t seed,
                                             std::size_t allUpTo, std::size_t sampled) {
  std::vector<std::uint32_t> bodies;
  if (bodyCount <= allUpTo || sampled >= bodyCount) {
    for (std::size_t i = 0; i < bodyCount; ++i) bodies.push_back(std::uint32_t(i));
    return bodies;
  }
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::size_t> pick(0, bodyCount - 1);
  std::unordered_set<std::uint32_t> chosen;
  while (chosen.size() < sampled) chosen.insert(std::uint32_t(pick(random)));
  bodies.assign(chosen.begin(), chosen.end());
  std::sort(bodies.begin(), bodies.end());
  return bodies;
}

std::vector<glm::dvec3> referenceAccelerations(unsigned int positionMass, glm::ivec2 size,
                                               std::size_t bodyCount, const StepParams& params,
                                               const std::vector<std::uint32_t>& bodies,
                                               unsigned int accelerationArray,
                                               std::vector<glm::dvec3>* judged) {
  if (bodies.empty()) return {};
  if (size.x <= 0 || std::size_t(size.x) * std::size_t(size.y) < bodyCount)
    throw std::invalid_argument("referenceAccelerations: the texture cannot hold the bodies");
  const ReferencePrograms programs = referencePrograms(false, bodies.size(), params);
  gl::Buffer samples = bufferOf(bodies.size() * 4, bodies.data());
  gl::Buffer reference = bufferOf(bodies.size() * 32, nullptr);
  gl::Buffer judgedBuffer = bufferOf(bodies.size() * 16, nullptr);
  fillWithNan(reference.id());
  fillWithNan(judgedBuffer.id());
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
  glBindTextureUnit(kPositionUnit, positionMass);
  glBindTextureUnit(kAccelerationUnit, accelerationArray);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, samples.id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, reference.id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, judgedBuffer.id());
  runBlocks(programs, bodyCount);
  std::vector<glm::dvec3> result = readReference(reference.id(), bodies.size(), params.gravity);
  if (judged) {
    std::vector<glm::vec4> values(bodies.size());
    glGetNamedBufferSubData(judgedBuffer.id(), 0, GLsizeiptr(values.size() * 16), values.data());
    judged->clear();
    for (const glm::vec4& value : values) judged->push_back(glm::dvec3(value));
  }
  return result;
}

ReferenceSum::ReferenceSum(std::span<const glm::vec4> positions, const StepParams& params)
    : programs_(
          std::make_unique<ReferencePrograms>(referencePrograms(true, positions.size(), params))),
      positions_(bufferOf(positions.size() * 16, positions.data())),
      reference_(bufferOf(positions.size() * 32, nullptr)),
      samples_(positions.size()),
      gravity_(params.gravity) {
  fillWithNan(reference_.id());
}

ReferenceSum::~ReferenceSum() = default;

void ReferenceSum::add(unsigned int positionMass, std::size_t count) {
  if (samples_ == 0 || count == 0) return;
  if (endedInABlock_)
    throw std::logic_error("ReferenceSum: a piece after one that ended inside a block");
  endedInABlock_ = count % kReferenceBlock != 0;
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
  glBindTextureUnit(kPositionUnit, positionMass);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, positions_.id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, reference_.id());
  runBlocks(*programs_, count, added_);
  added_ = true;
}

std::vector<glm::dvec3> ReferenceSum::result() const {
  if (!added_) return std::vector<glm::dvec3>(samples_, glm::dvec3(0.0));
  return readReference(reference_.id(), samples_, gravity_);
}

std::vector<double> relativeErrors(const std::vector<glm::dvec3>& accelerations,
                                   const std::vector<glm::dvec3>& references) {
  std::vector<double> errors;
  for (std::size_t k = 0; k < references.size(); ++k) {
    const double difference = glm::length(accelerations[k] - references[k]);
    const double magnitude = glm::length(references[k]);
    double error = magnitude > 0
                       ? difference / magnitude
                       : (difference == 0 ? 0.0 : std::numeric_limits<double>::infinity());
    if (std::isnan(error)) error = std::numeric_limits<double>::infinity();
    errors.push_back(error);
  }
  return errors;
}

ForceErrorPercentiles percentilesOf(std::vector<double> errors) {
  ForceErrorPercentiles result;
  result.samples = errors.size();
  if (errors.empty()) return result;
  std::sort(errors.begin(), errors.end());
  const auto at = [&](double fraction) {
    const double place = fraction * double(errors.size() - 1);
    const std::size_t below = std::size_t(std::floor(place));
    const std::size_t above = std::min(below + 1, errors.size() - 1);
    const double weight = place - double(below);
    if (weight == 0 || errors[above] == errors[below]) return errors[below];  // also inf, inf
    return errors[below] + weight * (errors[above] - errors[below]);
  };
  result.median = at(0.5);
  result.p90 = at(0.9);
  result.p99 = at(0.99);
  result.p999 = at(0.999);
  result.max = errors.back();
  return result;
}

ForceErrorPercentiles forceErrorPercentiles(unsigned int positionMass, glm::ivec2 size,
                                            std::size_t bodyCount, const StepParams& params,
                                            unsigned int accelerationArray, std::uint64_t seed) {
  const std::vector<std::uint32_t> bodies = forceErrorSamples(bodyCount, seed);
  std::vector<glm::dvec3> judged;
  const std::vector<glm::dvec3> reference = referenceAccelerations(
      positionMass, size, bodyCount, params, bodies, accelerationArray, &judged);
  return percentilesOf(relativeErrors(judged, reference));
}

}  // namespace nbody
