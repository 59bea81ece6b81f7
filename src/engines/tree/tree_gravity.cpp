#include "engines/tree/tree_gravity.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "engines/tree/tree_build.h"
#include "engines/tree/tree_layout.h"
#include "engines/tree/tree_sort.h"
#include "gl/desktop_calls.h"

namespace nbody {

using tree::WalkOutput;

namespace {

// Timestamps: before the build, after the build, the moments, the relative opening's estimate and
// the walk.
constexpr int kTimerSlots = 4, kTimerMarks = 5;

const gl::Limits& checkedLimits() {
  const gl::Limits& limits = gl::limits();
  if (!limits.supports(4, 3))
    throw std::runtime_error("the tree needs OpenGL 4.3 compute shaders; this context is " +
                             std::to_string(limits.versionMajor) + "." +
                             std::to_string(limits.versionMinor));
  if (limits.maxShaderStorageBufferBindings < GLint(tree::kBindingsUsed) ||
      limits.maxComputeShaderStorageBlocks < 10)
    throw std::runtime_error(
        "the tree needs " + std::to_string(tree::kBindingsUsed) +
        " shader storage bindings and 10 blocks per compute shader; this GPU offers " +
        std::to_string(limits.maxShaderStorageBufferBindings) + " and " +
        std::to_string(limits.maxComputeShaderStorageBlocks));
  return limits;
}

}  // namespace

TreeGravity::TreeGravity() : TreeGravity(tree::arrayLimitsOf(gl::limits())) {}

TreeGravity::TreeGravity(const tree::ArrayLimits& arrays)
    : kernels_(checkedLimits()), arrayLimits_(arrays), timer_(kTimerSlots, kTimerMarks) {
  const char* order = std::getenv("NBODY_WALK_ORDER");
  heavyFirst_ = order != nullptr && std::string_view(order) == "heavy-first";
  walk_.program(kernels_, resolveTreeSettings(1), StepParams{},
                WalkOutput::accelerations);  // compile errors show here
}

TreeGravity::~TreeGravity() = default;
TreeGravity::TreeGravity(TreeGravity&&) noexcept = default;
TreeGravity& TreeGravity::operator=(TreeGravity&&) noexcept = default;

std::size_t
TreeGravity::bytesPerBody() {  // what another 1M bodies add (the spill pool is full size at both)
  return tree::ceilDiv(bytesFor(2u << 20) - bytesFor(1u << 20), 1u << 20);
}
std::size_t TreeGravity::bytesFor(std::size_t bodies) { return tree::bufferSizesFor(bodies).total; }

void TreeGravity::checkCapacity(std::size_t bodies, const TreeSettings& settings) const {
  validate(settings);
  const gl::Limits& limits = kernels_.limits();
  tree::checkArraysFit(bodies, arrayLimits_);
  const std::size_t groups =
      std::max({groupCount(bodies, settings), tree::ceilDiv(bodies, tree::kSortBlock),
                tree::ceilDiv(bodies, tree::kElementThreads)});
  if (!kernels_.dispatches(groups))
    throw std::runtime_error(std::to_string(bodies) +
                             " bodies need more compute work groups than this GPU dispatches");
  tree::WalkStage::checkFits(limits, settings);
}

void TreeGravity::prepare(glm::ivec2 size, std::size_t bodyCount, const TreeSettings& settings,
                          GroupRange groups) {
  if (bodyCount == 0) throw std::invalid_argument("the tree needs at least one body");
  if (std::size_t(size.x) * std::size_t(size.y) < bodyCount || size.x <= 0)
    throw std::invalid_argument("a " + std::to_string(size.x) + " x " + std::to_string(size.y) +
                                " texture cannot hold " + std::to_string(bodyCount) + " bodies");
  checkCapacity(bodyCount, settings);
  tree::clipped(groups,
                groupCount(bodyCount, settings));  // refuses a range that starts past its end
  reserveArrays(bodyCount);
  lastBodies_ = bodyCount;
  // Earlier work may still read or write these buffers, and the positions may come from image
  // stores: order this evaluation after both.
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT |
                  GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
  buffers_.bindAll();
}

void TreeGravity::reserveArrays(std::size_t bodyCount) {
  buffers_.reserve(bodyCount, arrayLimits_);
  kernels_.setStorage(buffers_.storage());
}

void TreeGravity::evaluate(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                           const StepParams& params, const TreeSettings& settings,
                           GLuint accelerationArray, GroupRange groups,
                           const tree::WalkParts& parts) {
  if (bodyCount > 0) {  // the ring's trials build the walk for where its arrays are
    checkCapacity(bodyCount, settings);
    reserveArrays(bodyCount);
  }
  // The last trial's accelerations are the evaluation's: the ring changes no bit.
  ring_.evaluate(
      bodyCount, settings, kernels_.limits(),
      [&](const TreeSettings& trial) {
        walk_.program(kernels_, trial, params, WalkOutput::accelerations);
      },
      [&](const TreeSettings& ring, bool trial) {
        evaluateWith(positionMass, size, bodyCount, params, ring, accelerationArray, groups,
                     trial ? tree::WalkParts{} : parts);
      });
}

void TreeGravity::evaluateWith(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                               const StepParams& params, const TreeSettings& settings,
                               GLuint accelerationArray, GroupRange groups,
                               const tree::WalkParts& parts) {
  buildAndWalk(positionMass, size, bodyCount, params, settings, WalkOutput::accelerations, groups,
               accelerationArray, parts);
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT |
                  GL_TEXTURE_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
}

double TreeGravity::potentialEnergy(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                                    const StepParams& params, const TreeSettings& settings) {
  buildAndWalk(positionMass, size, bodyCount, params, settings, WalkOutput::potential,
               GroupRange{});
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
  return 0.5 * params.gravity * walk_.sumPotentials(buffers_, walk_.lastRange().last);
}

void TreeGravity::bodyPotentials(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                                 const StepParams& params, const TreeSettings& settings,
                                 GLuint fieldArray) {
  buildAndWalk(positionMass, size, bodyCount, params, settings, WalkOutput::bodyPotentials,
               GroupRange{}, fieldArray);
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT |
                  GL_TEXTURE_UPDATE_BARRIER_BIT);
}

void TreeGravity::bodyDensities(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                                const TreeSettings& chosen, GLuint fieldArray) {
  const TreeSettings settings = ring_.resolve(bodyCount, chosen);
  prepare(size, bodyCount, settings, GroupRange{});
  glBindTextureUnit(tree::kPositionUnit, positionMass);
  tree::sortBodies(kernels_, buffers_, bodyCount);
  tree::buildTopology(kernels_, bodyCount);
  tree::computeMoments(kernels_, buffers_, bodyCount, settings.theta);
  glBindImageTexture(tree::kAccelerationImageUnit, fieldArray, 0, GL_TRUE, 0, GL_WRITE_ONLY,
                     GL_RGBA32F);
  tree::computeDensities(kernels_, bodyCount, kDensityNeighbours, size.x);
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT |
                  GL_TEXTURE_UPDATE_BARRIER_BIT);
}

TreeGravity::ListStatistics TreeGravity::countLists(GLuint positionMass, glm::ivec2 size,
                                                    std::size_t bodyCount, const StepParams& params,
                                                    const TreeSettings& settings,
                                                    GroupRange groups) {
  buildAndWalk(positionMass, size, bodyCount, params, settings, WalkOutput::countOnly, groups);
  return listStatistics();
}

void TreeGravity::buildAndWalk(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                               const StepParams& params, const TreeSettings& chosen,
                               WalkOutput output, GroupRange groups, GLuint accelerationArray,
                               const tree::WalkParts& parts) {
  const TreeSettings settings = ring_.resolve(bodyCount, chosen);
  prepare(size, bodyCount, settings, groups);
  const bool timed = output == WalkOutput::accelerations && timer_.begin();
  const auto mark = [&](int k) {
    if (timed) timer_.mark(k);
  };
  mark(0);
  glBindTextureUnit(tree::kPositionUnit, positionMass);
  tree::sortBodies(kernels_, buffers_, bodyCount);
  tree::buildTopology(kernels_, bodyCount);
  mark(1);
  tree::computeMoments(kernels_, buffers_, bodyCount, settings.theta);
  mark(2);
  if (output == WalkOutput::accelerations || output == WalkOutput::bodyPotentials)
    glBindImageTexture(tree::kAccelerationImageUnit, accelerationArray, 0, GL_TRUE, 0,
                       GL_WRITE_ONLY, GL_RGBA32F);
  tree::WalkParts restoring{parts.groups, {}};
  if (parts.afterPart)  // what the walk's next part needs of what afterPart may change
    restoring.afterPart = [&](GroupRange part) {
      parts.afterPart(part);
      buffers_.bindAll();
      glBindImageTexture(tree::kAccelerationImageUnit, accelerationArray, 0, GL_TRUE, 0,
                         GL_WRITE_ONLY, GL_RGBA32F);
    };
  if (opensRelative(settings)) estimateAccelerations(bodyCount, size, params, settings, groups);
  restoring.order = heavyFirstOrderOf(groups, bodyCount, settings, restoring);
  mark(3);
  walk_.run(kernels_, buffers_, bodyCount, size, params, settings, output, groups, restoring);
  mark(4);
}

void TreeGravity::estimateAccelerations(std::size_t bodyCount, glm::ivec2 size,
                                        const StepParams& params, const TreeSettings& settings,
                                        GroupRange groups) {
  walk_.run(kernels_, buffers_, bodyCount, size, params, tree::estimateSettings(settings),
            WalkOutput::estimates, tree::estimateGroupsOf(groups, bodyCount, settings));
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
}

// Waits for the coarse walk (its counts read back): an experiment's cost, NBODY_WALK_ORDER.
GLuint TreeGravity::heavyFirstOrderOf(GroupRange groups, std::size_t bodyCount,
                                      const TreeSettings& settings, const tree::WalkParts& parts) {
  groupsMoved_ = 0;
  if (!heavyFirst_ || !opensRelative(settings)) return 0;
  groups = tree::clipped(groups, tree::groupCountOf(bodyCount, settings));
  const TreeSettings coarse = tree::estimateSettings(settings);
  const GroupRange coarseGroups = tree::estimateGroupsOf(groups, bodyCount, settings);
  const std::vector<tree::GroupCounts> counts = walk_.groupCounts(buffers_);
  const std::size_t perCoarse = std::size_t(coarse.groupSize / settings.groupSize);
  const std::vector<std::uint32_t> order =
      tree::heavyFirstOrder(groups, walk_.partGroupsFor(parts), [&](std::size_t g) {
        const tree::GroupCounts& c = counts.at(g / perCoarse - coarseGroups.first);
        return double(c.bodyInteractions) + double(c.cellInteractions);
      });
  for (std::size_t g = groups.first; g < groups.last; ++g) groupsMoved_ += order[g] != g ? 1 : 0;
  const GLuint buffer = gl::ensureBuffer(order_, std::max<std::size_t>(order.size(), 1) * 4);
  glNamedBufferSubData(buffer, 0, GLsizeiptr(order.size() * 4), order.data());
  return buffer;
}

std::optional<TreeGravity::TimeSplit> TreeGravity::lastTimeSplit() {
  const std::optional<std::vector<double>> seconds = timer_.takeNewest();
  if (!seconds) return std::nullopt;
  return TimeSplit{(*seconds)[0], (*seconds)[1], (*seconds)[2], (*seconds)[3]};
}

std::vector<std::uint32_t> TreeGravity::sortedBodies() const {
  return tree::readSortedBodies(buffers_, lastBodies_);
}
std::vector<std::uint64_t> TreeGravity::sortedKeys() const {
  return tree::readSortedKeys(buffers_, lastBodies_);
}

}  // namespace nbody
