#include "engines/tree/tree_share.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "gl/desktop_calls.h"
#include "gl/state_access.h"
#include "parallel/ranks.h"
#include "util/system_limits.h"

namespace nbody::tree {
namespace {

// What tree_share.comp is given as defines: its work-group size and its bindings.
constexpr std::size_t kGroup = 256;
// Bindings the walk does not read (the sort's bounds and keys): a walk hands its parts on between
// its dispatches, which gather through these. Image unit 0 is the walk's output too.
constexpr GLuint kOrderBinding = 0, kSharedBinding = 1, kAccelerationUnit = 0;
static_assert(kOrderBinding == kBounds && kSharedBinding == kKeysIn);
constexpr std::size_t kBytesPerBody = 3 * sizeof(float);  // x, y, z: the walk's w is always 0

// Sorted bodies [first g, last g) of groups [first, last), within the `bodyCount` bodies.
BodyRange bodiesOf(BodyRange groups, std::size_t groupSize, std::size_t bodyCount) {
  return {std::min(groups.first * groupSize, bodyCount),
          std::min(groups.last * groupSize, bodyCount)};
}

// tree_share.comp's variant that gathers this rank's accelerations out of an image or scatters
// every rank's into one.
gl::UniformProgram shareProgram(bool gather) {
  const gl::Defines defines{{"GATHER", gather ? 1 : 0},
                            {"GROUP_SIZE", int(kGroup)},
                            {"B_ORDER", int(kOrderBinding)},
                            {"B_SHARED", int(kSharedBinding)},
                            {"U_ACCELERATION", int(kAccelerationUnit)}};
  return gl::UniformProgram(
      gl::buildProgram({{GL_COMPUTE_SHADER, {"group_rows.glsl", "tree_share.comp"}}}, defines));
}

}  // namespace

void TreeShare::move(const gl::UniformProgram& program, std::size_t invocations, BodyRange own) {
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kOrderBinding, now_.gravity->sortedOrderBuffer());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kSharedBinding, sorted_.buffer.id());
  glBindImageTexture(kAccelerationUnit, now_.accelerationArray, 0, GL_TRUE, 0, GL_READ_WRITE,
                     GL_RGBA32F);
  glUseProgram(program.id());
  program.setInt("uFirst", int(own.first));
  program.setInt("uLast", int(own.last));
  program.setInt("uBodyCount", int(now_.bodyCount));
  gl::dispatchRows((invocations + kGroup - 1) / kGroup);
}

TreeShare::TreeShare() : gather_(shareProgram(true)), scatter_(shareProgram(false)) {}

void TreeShare::checkFits(std::size_t bodyCount, const gl::Limits& limits) {
  const std::size_t block = std::size_t(limits.maxShaderStorageBlockBytes);
  if (bodyCount * kBytesPerBody <= block) return;
  const auto [need, most] = comparedBytes(double(bodyCount * kBytesPerBody), double(block));
  throw std::runtime_error(std::to_string(bodyCount) + " bodies exchange " + need +
                           " of accelerations between ranks, over the " + most +
                           " one shader storage block may hold on this GPU (at most " +
                           std::to_string(block / kBytesPerBody) +
                           " bodies in a replicated tree run: distribute=decompose holds more)");
}

std::vector<BodyRange> TreeShare::groupShares(std::size_t groups) const {
  const int count = ranks().count();
  if (counts_.size() != groups) return shareOut(groups, 1, count);
  std::vector<std::int64_t> weights;
  for (const GroupCounts& group : counts_)
    weights.push_back(std::int64_t(group.bodyInteractions) + std::int64_t(group.cellInteractions));
  return shareOutByWeight(groups, 1, weights, count);
}

GroupRange TreeShare::groupsOf(std::size_t bodyCount, std::size_t groupSize) const {
  const std::size_t groups = (bodyCount + groupSize - 1) / groupSize;
  const BodyRange own = groupShares(groups)[std::size_t(ranks().rank())];
  return {own.first, own.last};
}

void TreeShare::beginExchange(TreeGravity& gravity, GLuint accelerationArray, std::size_t bodyCount,
                              std::size_t groupSize, RankExchange& exchange) {
  const std::size_t groups = (bodyCount + groupSize - 1) / groupSize;
  now_ = {&gravity, accelerationArray, bodyCount, groupSize, &exchange, groupShares(groups), {}, 0};
  for (const BodyRange& range : now_.groupRanges)
    now_.shares.push_back(bodiesOf(range, groupSize, bodyCount));
  now_.gathered = now_.shares[std::size_t(ranks().rank())].first;
  exchange.beginBufferExchange(ensureBuffer(sorted_, bodyCount * kBytesPerBody), kBytesPerBody,
                               now_.shares);
}

tree::WalkParts TreeShare::walkParts(const gl::Limits& limits) {
  const BodyRange own = now_.groupRanges[std::size_t(ranks().rank())];
  return {tree::partGroupsOf(own.size(), limits), [this](tree::GroupRange part) {
            gatherUpTo(bodiesOf({part.first, part.last}, now_.groupSize, now_.bodyCount).last);
          }};
}

// Own sorted bodies up to `body` copied out of the image and handed to the exchange.
void TreeShare::gatherUpTo(std::size_t body) {
  const BodyRange own = now_.shares[std::size_t(ranks().rank())];
  body = std::min(body, own.last);
  if (body > now_.gathered) {
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
    move(gather_, body - now_.gathered, {now_.gathered, body});
    now_.gathered = body;
  }
  now_.exchange->partWritten(body);
}

void TreeShare::finishExchange() {
  const BodyRange own = now_.shares[std::size_t(ranks().rank())];
  gatherUpTo(own.last);  // all of it, where the walk went without parts (tuning the ring)
  now_.exchange->finishBufferExchange();
  move(scatter_, now_.bodyCount, own);
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
  gatherCounts(*now_.gravity, now_.groupRanges);
}

double TreeShare::interactions(std::size_t bodyCount, std::size_t groupSize) const {
  double total = 0;
  for (std::size_t g = 0; g < counts_.size(); ++g) {
    const std::size_t bodies = std::min(groupSize, bodyCount - std::min(bodyCount, g * groupSize));
    total += double(bodies) *
             (double(counts_[g].bodyInteractions) + double(counts_[g].cellInteractions));
  }
  return total;
}

// Every rank's groups' counts (integers), so that every rank cuts the next ranges alike.
void TreeShare::gatherCounts(const TreeGravity& gravity, const std::vector<BodyRange>& shares) {
  std::size_t groups = 0;
  for (const BodyRange& range : shares) groups += range.size();
  counts_.assign(groups, {});
  const std::vector<GroupCounts> own = gravity.groupCounts();
  const BodyRange mine = shares[std::size_t(ranks().rank())];
  if (!own.empty())
    std::memcpy(counts_.data() + mine.first, own.data(), own.size() * sizeof(GroupCounts));
  std::vector<std::size_t> units;
  for (const BodyRange& range : shares) units.push_back(range.size());
  ranks().allGather(std::as_writable_bytes(std::span(counts_)), units, sizeof(GroupCounts));
}

}  // namespace nbody::tree
