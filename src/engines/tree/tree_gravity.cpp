#include "engines/tree/tree_gravity.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "engines/stage_kernel.h"
#include "gl/limits.h"
#include "gl/shader_program.h"

namespace nbody {
namespace {

using tree::Binding;

// Work-group sizes (each kernel's WORKGROUP_SIZE; the sort's are tree::kSortThreads, the walk's
// come from its settings).
constexpr std::size_t kBoundsThreads = 256;
constexpr std::size_t kBoundsGroups = 1024;  // at most, each invocation taking several bodies
constexpr std::size_t kElementThreads = 256;  // one invocation per body: topology, moments
constexpr std::size_t kSumThreads = 256;
// Up to this many sort blocks (N = 131072) one work group scans the block counts, an invocation a
// digit (radix_scan.comp says why).
constexpr std::size_t kOneGroupScanBlocks = 64;
constexpr int kPositionUnit = 0, kAccelerationImageUnit = 0;

std::size_t ceilDiv(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

GLint location(GLuint program, const char* name) { return glGetUniformLocation(program, name); }
void setUint(GLuint program, const char* name, std::size_t value) {
  glProgramUniform1ui(program, location(program, name), GLuint(value));
}
void setFloat(GLuint program, const char* name, double value) {
  glProgramUniform1f(program, location(program, name), float(value));
}
void setInt(GLuint program, const char* name, int value) {
  glProgramUniform1i(program, location(program, name), value);
}

void storageBarrier() { glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT); }

// Bytes of shared memory tree_walk.comp declares for `s` (subgroups of `subgroupSize`, 0 for the
// prefix sums through shared memory): stack, the spill slot's number, scan (2 x uvec2 per
// invocation; with subgroups one per subgroup, or per invocation for the potential), the round's
// ranges (2 uints per invocation), body tile (vec4; + index for the potential), cell tile (2 vec4,
// + vec4 and vec2 for quadrupoles).
std::size_t walkSharedBytes(const TreeSettings& s, bool potential, int subgroupSize) {
  const std::size_t threads = std::size_t(walkThreadsOf(s)), tile = std::size_t(tileOf(s));
  const std::size_t scan = subgroupSize == 0 ? 2 * threads : potential ? threads : threads / std::size_t(subgroupSize);
  std::size_t bytes = std::size_t(stackOf(s)) * 4 + 4 + scan * 8 + 2 * threads * 4 + tile * 16;
  bytes += tile * (s.expansionOrder >= 2 ? 16 + 16 + 16 + 8 : 16 + 16);
  if (potential) bytes += tile * 4;
  return bytes;
}

// The files a kernel is made of: the shared ones first (workgroup.glsl's #extension lines before
// any code).
std::vector<std::string> sourcesOf(const std::string& file) {
  if (file == "tree_walk.comp") return {"workgroup.glsl", "body_layout.glsl", "gravity.glsl", "tree_common.glsl", file};
  return {"workgroup.glsl", "body_layout.glsl", "tree_common.glsl", file};
}

// The defines every variant of a kernel has: its work-group size (the walk's comes with its
// settings) and the sort's histogram.
gl::Defines fixedDefinesOf(const std::string& file) {
  gl::Defines defines;
  if (file == "tree_bounds.comp") defines.set("WORKGROUP_SIZE", int(kBoundsThreads));
  else if (file == "tree_topology.comp" || file == "tree_moments.comp") defines.set("WORKGROUP_SIZE", int(kElementThreads));
  else if (file == "tree_sum.comp") defines.set("WORKGROUP_SIZE", int(kSumThreads));
  else if (file != "tree_walk.comp") defines.set("WORKGROUP_SIZE", int(tree::kSortThreads));
  if (file == "tree_keys.comp" || file == "radix_histogram.comp") defines.set("HISTOGRAM_BINS", int(tree::kRadix));
  return defines;
}

}  // namespace

TreeGravity::TreeGravity() : limits_(gl::limits()) {
  if (!limits_.supports(4, 3))
    throw std::runtime_error("the tree needs OpenGL 4.3 compute shaders; this context is " +
                             std::to_string(limits_.versionMajor) + "." + std::to_string(limits_.versionMinor));
  if (limits_.maxShaderStorageBufferBindings < GLint(tree::kBindingCount) || limits_.maxComputeShaderStorageBlocks < 10)
    throw std::runtime_error("the tree needs " + std::to_string(tree::kBindingCount) +
                             " shader storage bindings and 10 blocks per compute shader; this GPU offers " +
                             std::to_string(limits_.maxShaderStorageBufferBindings) + " and " +
                             std::to_string(limits_.maxComputeShaderStorageBlocks));
  for (int k = 0; k < 4; ++k) {
    TimerSlot slot;
    for (gl::TimestampQuery& mark : slot.marks) mark = gl::TimestampQuery::create();
    timers_.push_back(std::move(slot));
  }
  walkProgram(resolveTreeSettings(1), StepParams{}, WalkOutput::accelerations);  // compile errors show here
}

TreeGravity::~TreeGravity() = default;
TreeGravity::TreeGravity(TreeGravity&&) noexcept = default;
TreeGravity& TreeGravity::operator=(TreeGravity&&) noexcept = default;

std::size_t TreeGravity::bytesPerBody() {  // what another 1M bodies add (the spill pool is full size at both)
  return ceilDiv(bytesFor(2u << 20) - bytesFor(1u << 20), 1u << 20);
}
std::size_t TreeGravity::bytesFor(std::size_t bodies) { return tree::bufferSizesFor(bodies).total; }

void TreeGravity::checkCapacity(std::size_t bodies, const TreeSettings& settings) const {
  validate(settings);
  const tree::BufferSizes sizes = tree::bufferSizesFor(bodies);
  if (double(sizes.largest) > double(limits_.maxShaderStorageBlockBytes))
    throw std::runtime_error(std::to_string(bodies) + " bodies need tree buffers of " +
                             std::to_string(sizes.largest >> 20) + " MiB, over the " +
                             std::to_string(limits_.maxShaderStorageBlockBytes >> 20) +
                             " MiB one shader storage block may hold on this GPU");
  const std::size_t groups = std::max(ceilDiv(bodies, std::size_t(settings.groupSize)), ceilDiv(bodies, tree::kSortBlock));
  const std::size_t perRow = std::size_t(limits_.maxComputeWorkGroupCount[0]);
  if (ceilDiv(std::max(groups, ceilDiv(bodies, kElementThreads)), perRow) > std::size_t(limits_.maxComputeWorkGroupCount[1]))
    throw std::runtime_error(std::to_string(bodies) + " bodies need more compute work groups than this GPU dispatches");
  const int threads = walkThreadsOf(settings);
  if (settings.prefixSums == TreeSettings::PrefixSums::subgroups &&
      (limits_.computeSubgroupSize == 0 || threads % limits_.computeSubgroupSize != 0))
    throw std::runtime_error(limits_.computeSubgroupSize == 0
                                 ? std::string("this GPU offers no subgroup arithmetic in compute shaders")
                                 : "subgroups of " + std::to_string(limits_.computeSubgroupSize) + " do not tile a walk of " +
                                       std::to_string(threads) + " invocations");
  const std::size_t sharedBytes = walkSharedBytes(settings);
  const bool sharedFits = sharedBytes <= std::size_t(limits_.maxComputeSharedMemoryBytes);
  if (!sharedFits)
    throw std::runtime_error("the walk with groups of " + std::to_string(settings.groupSize) + " and a stack of " +
                             std::to_string(stackOf(settings)) + " needs " +
                             std::to_string(sharedBytes) + " bytes of shared memory; this GPU offers " +
                             std::to_string(limits_.maxComputeSharedMemoryBytes) + ": choose a smaller stack or group");
}

// The walk's shared memory with `s` on this GPU, the potential's variant (the largest).
std::size_t TreeGravity::walkSharedBytes(const TreeSettings& s) const {
  return nbody::walkSharedBytes(s, true, usesSubgroups(s) ? limits_.computeSubgroupSize : 0);
}

bool TreeGravity::usesSubgroups(const TreeSettings& s) const {
  switch (s.prefixSums) {
    case TreeSettings::PrefixSums::sharedMemory: return false;
    case TreeSettings::PrefixSums::subgroups: return true;
    case TreeSettings::PrefixSums::automatic: break;
  }
  return limits_.computeSubgroupSize > 0 && walkThreadsOf(s) % limits_.computeSubgroupSize == 0;
}

GLuint TreeGravity::program(const std::string& file, const gl::Defines& defines) {
  auto key = std::make_pair(file, defines);
  auto found = programs_.find(key);
  if (found != programs_.end()) return found->second.id();
  gl::Program built =
      gl::buildProgram({{GL_COMPUTE_SHADER, sourcesOf(file)}}, tree::layoutDefines().add(fixedDefinesOf(file)).add(defines));
  setInt(built.id(), "uPositionMass", kPositionUnit);
  setInt(built.id(), "uAcceleration", kAccelerationImageUnit);
  return programs_.emplace(std::move(key), std::move(built)).first->second.id();
}

void TreeGravity::dispatch(std::size_t groups) const {
  const std::size_t x = std::min(groups, std::size_t(limits_.maxComputeWorkGroupCount[0]));
  const std::size_t y = ceilDiv(groups, x);
  if (y > std::size_t(limits_.maxComputeWorkGroupCount[1]))
    throw std::runtime_error(std::to_string(groups) + " work groups are more than this GPU dispatches");
  glDispatchCompute(GLuint(x), GLuint(y), 1);
}

void TreeGravity::prepare(glm::ivec2 size, std::size_t bodyCount, const TreeSettings& settings) {
  if (bodyCount == 0) throw std::invalid_argument("the tree needs at least one body");
  if (std::size_t(size.x) * std::size_t(size.y) < bodyCount || size.x <= 0)
    throw std::invalid_argument("a " + std::to_string(size.x) + " x " + std::to_string(size.y) +
                                " texture cannot hold " + std::to_string(bodyCount) + " bodies");
  checkCapacity(bodyCount, settings);
  buffers_.reserve(bodyCount);
  lastBodies_ = bodyCount;
  // Earlier work may still read or write these buffers, and the positions may come from image
  // stores: order this evaluation after both.
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT |
                  GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
  buffers_.bindAll();
}

void TreeGravity::findBounds(std::size_t bodyCount) {
  const GLuint bounds[6] = {~0u, ~0u, ~0u, 0u, 0u, 0u};  // ordered: largest, smallest
  glNamedBufferSubData(buffers_.buffer(tree::kBounds), 0, sizeof bounds, bounds);
  const GLuint id = program("tree_bounds.comp");
  const std::size_t perInvocation = ceilDiv(bodyCount, kBoundsGroups * kBoundsThreads);
  glUseProgram(id);
  setUint(id, "uBodyCount", bodyCount);
  setUint(id, "uBodiesPerInvocation", perInvocation);
  dispatch(ceilDiv(bodyCount, kBoundsThreads * perInvocation));
  storageBarrier();
}

void TreeGravity::makeKeys(std::size_t bodyCount) {
  const GLuint id = program("tree_keys.comp", {{"CURVE_HILBERT", 1}});
  const std::size_t blocks = ceilDiv(bodyCount, tree::kSortBlock);
  glUseProgram(id);
  setUint(id, "uBodyCount", bodyCount);
  setUint(id, "uBlockCount", blocks);
  buffers_.bindSortPass(-1);  // writes keys and values A
  dispatch(blocks);
  storageBarrier();
}

void TreeGravity::sortKeys(std::size_t bodyCount) {
  const std::size_t blocks = ceilDiv(bodyCount, tree::kSortBlock);
  const bool oneGroupScan = blocks <= kOneGroupScanBlocks;
  const GLuint histogram = program("radix_histogram.comp"),
               scan = program("radix_scan.comp", {{"SCAN_ONE_GROUP", oneGroupScan ? 1 : 0}}),
               scatter = program("radix_scatter.comp");
  for (GLuint id : {histogram, scan, scatter}) {
    setUint(id, "uCount", bodyCount);
    setUint(id, "uBlockCount", blocks);
  }
  for (int pass = 0; pass < tree::kSortPasses; ++pass) {
    buffers_.bindSortPass(pass);
    if (pass > 0) {  // the keys pass counted the first digit
      glUseProgram(histogram);
      setUint(histogram, "uShift", std::size_t(8 * pass));
      dispatch(blocks);
      storageBarrier();
    }
    glUseProgram(scan);
    glDispatchCompute(oneGroupScan ? 1 : GLuint(tree::kRadix), 1, 1);
    storageBarrier();
    glUseProgram(scatter);
    setUint(scatter, "uShift", std::size_t(8 * pass));
    dispatch(blocks);
    storageBarrier();
  }
  buffers_.bindSortPass(0);  // the sorted keys and values are in A again (an even number of passes)
}

void TreeGravity::buildTopology(std::size_t bodyCount) {
  const GLuint id = program("tree_topology.comp");
  glUseProgram(id);
  setUint(id, "uBodyCount", bodyCount);
  dispatch(ceilDiv(bodyCount, kElementThreads));
  storageBarrier();
}

void TreeGravity::computeMoments(std::size_t bodyCount, const TreeSettings& settings) {
  if (bodyCount < 2) return;
  const GLuint zero = 0;
  glClearNamedBufferSubData(buffers_.buffer(tree::kVisits), GL_R32UI, 0, GLsizeiptr((bodyCount - 1) * 4),
                            GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
  const GLuint id = program("tree_moments.comp");
  glUseProgram(id);
  setUint(id, "uBodyCount", bodyCount);
  setFloat(id, "uInverseTheta",
           settings.theta > 0 ? 1.0 / settings.theta : double(std::numeric_limits<float>::infinity()));
  dispatch(ceilDiv(bodyCount, kElementThreads));
  storageBarrier();
}

void TreeGravity::build(GLuint positionMass, std::size_t bodyCount, const StepParams&, const TreeSettings&) {
  glBindTextureUnit(kPositionUnit, positionMass);
  findBounds(bodyCount);
  makeKeys(bodyCount);
  sortKeys(bodyCount);
  buildTopology(bodyCount);
}

void TreeGravity::walk(std::size_t bodyCount, glm::ivec2 size, const StepParams& params, const TreeSettings& s,
                       WalkOutput output) {
  const GLuint id = walkProgram(s, params, output);
  const std::size_t groups = ceilDiv(bodyCount, std::size_t(s.groupSize));
  glUseProgram(id);
  setUint(id, "uBodyCount", bodyCount);
  setUint(id, "uGroupCount", groups);
  setUint(id, "uLeafSize", std::size_t(s.leafSize));
  setUint(id, "uSmallCell", std::size_t(s.smallCell));
  setUint(id, "uSpillSlots", buffers_.spillSlots());
  setFloat(id, "uGravity", params.gravity);
  setFloat(id, "uSoftening2", params.softening * params.softening);
  setInt(id, "uTextureWidth", size.x);
  for (std::size_t first = 0; first < groups; first += walkPartGroups_) {
    if (first > 0) glFinish();  // see kWalkPartGroups
    setUint(id, "uGroupOffset", first);
    dispatch(std::min(walkPartGroups_, groups - first));
  }
  lastGroups_ = groups;
  lastGroupSize_ = std::size_t(s.groupSize);
}

GLuint TreeGravity::walkProgram(const TreeSettings& s, const StepParams& params, WalkOutput output) {
  return program("tree_walk.comp", {{"WORKGROUP_SIZE", walkThreadsOf(s)},
                                    {"GROUP_SIZE", s.groupSize},
                                    {"BODIES_PER_THREAD", s.bodiesPerThread},
                                    {"TILE", tileOf(s)},
                                    {"STACK_SIZE", stackOf(s)},
                                    {"SPILL_ROWS", spillRowsOf(s)},
                                    {"SPILL_SLOT_NODES", int(tree::kSpillSlotNodes)},
                                    {"SUBGROUP_SCAN", usesSubgroups(s) ? 1 : 0},
                                    {"SUBGROUP_SIZE", usesSubgroups(s) ? limits_.computeSubgroupSize : 0},
                                    {"EXPANSION_ORDER", s.expansionOrder},
                                    {"SOFTENED", softened(params) ? 1 : 0},
                                    {"POTENTIAL", output == WalkOutput::potential ? 1 : 0},
                                    {"COUNT_ONLY", output == WalkOutput::countOnly ? 1 : 0},
                                    {"BODIES", 1}});  // gravity.glsl's addBody, unused here
}

TreeGravity::TimerSlot* TreeGravity::beginTiming() {
  TimerSlot& slot = timers_[std::size_t(nextTimer_)];
  if (slot.pending) {  // unread: reuse it once finished (nobody asked); else leave this one untimed
    GLint available = 0;
    glGetQueryObjectiv(slot.marks[3].id(), GL_QUERY_RESULT_AVAILABLE, &available);
    if (!available) return nullptr;
  }
  nextTimer_ = (nextTimer_ + 1) % int(timers_.size());
  slot.pending = true;
  return &slot;
}

void TreeGravity::evaluate(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount, const StepParams& params,
                           const TreeSettings& settings, GLuint accelerationArray) {
  if (tunesRing(bodyCount, settings) && !tunedRing(bodyCount, settings)) {
    tuneRing(positionMass, size, bodyCount, params, settings, accelerationArray);
    return;  // the last trial's accelerations are the evaluation's: the ring changes no bit
  }
  evaluateWith(positionMass, size, bodyCount, params, withRing(bodyCount, settings), accelerationArray);
}

bool TreeGravity::tunesRing(std::size_t bodyCount, const TreeSettings& settings) const {
  return settings.stackSize == 0 && bodyCount > ringTunedAbove_;
}

TreeSettings TreeGravity::withRing(std::size_t bodyCount, TreeSettings settings) const {
  if (settings.stackSize != 0) return settings;
  const std::optional<int> tuned = tunesRing(bodyCount, settings) ? tunedRing(bodyCount, settings) : std::nullopt;
  settings.stackSize = tuned ? *tuned : stackOf(settings);
  return settings;
}

std::optional<int> TreeGravity::tunedRing(std::size_t bodyCount, const TreeSettings& settings) const {
  const auto found = tunedRings_.find({bodyCount, describe(settings)});
  if (found == tunedRings_.end()) return std::nullopt;
  return found->second;
}

void TreeGravity::tuneRing(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount, const StepParams& params,
                           const TreeSettings& settings, GLuint accelerationArray) {
  const int rings[] = {stackOf(settings), deepestRingThatFits(settings)};
  TreeSettings trial = settings;
  for (const int ring : rings) {  // compiled before any is timed, as is the first evaluation: see the header
    trial.stackSize = ring;
    walkProgram(trial, params, WalkOutput::accelerations);
  }
  evaluateWith(positionMass, size, bodyCount, params, trial, accelerationArray);
  double fastest = std::numeric_limits<double>::infinity();
  int best = rings[0];
  for (const int ring : rings) {
    trial.stackSize = ring;
    glFinish();
    const auto start = std::chrono::steady_clock::now();
    evaluateWith(positionMass, size, bodyCount, params, trial, accelerationArray);
    glFinish();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds < fastest) fastest = seconds, best = ring;
  }
  tunedRings_[{bodyCount, describe(settings)}] = best;
}

int TreeGravity::deepestRingThatFits(TreeSettings settings) const {
  const int least = stackOf(settings);
  for (settings.stackSize = 4096; settings.stackSize > least; settings.stackSize /= 2)
    if (walkSharedBytes(settings) <= std::size_t(limits_.maxComputeSharedMemoryBytes)) return settings.stackSize;
  return least;
}

void TreeGravity::evaluateWith(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount, const StepParams& params,
                               const TreeSettings& settings, GLuint accelerationArray) {
  buildAndWalk(positionMass, size, bodyCount, params, settings, WalkOutput::accelerations, accelerationArray);
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT |
                  GL_SHADER_STORAGE_BARRIER_BIT);
}

double TreeGravity::potentialEnergy(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                                    const StepParams& params, const TreeSettings& settings) {
  buildAndWalk(positionMass, size, bodyCount, params, settings, WalkOutput::potential);
  storageBarrier();
  return 0.5 * params.gravity * sumPotentials(lastGroups_);
}

double TreeGravity::sumPotentials(std::size_t count) {
  const GLuint id = program("tree_sum.comp");
  glUseProgram(id);
  GLuint input = buffers_.buffer(tree::kPotential);
  GLuint outputs[2] = {buffers_.buffer(tree::kSumIn), buffers_.buffer(tree::kSumOut)};
  int next = 0;
  do {
    const std::size_t perInvocation = std::max<std::size_t>(1, ceilDiv(count, kSumThreads * 256));
    const std::size_t groups = ceilDiv(count, kSumThreads * perInvocation);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, tree::kSumIn, input);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, tree::kSumOut, outputs[next]);
    setUint(id, "uCount", count);
    setUint(id, "uPerInvocation", perInvocation);
    dispatch(groups);
    storageBarrier();
    input = outputs[next];
    next = 1 - next;
    count = groups;
  } while (count > 1);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  double sum = 0;
  glGetNamedBufferSubData(input, 0, sizeof sum, &sum);
  buffers_.bindAll();
  return sum;
}

std::optional<TreeGravity::TimeSplit> TreeGravity::lastTimeSplit() {
  std::optional<TimeSplit> newest;
  for (std::size_t k = 1; k <= timers_.size(); ++k) {  // oldest first, so the newest wins
    TimerSlot& slot = timers_[(std::size_t(nextTimer_) + k - 1) % timers_.size()];
    if (!slot.pending) continue;
    GLint available = 0;
    glGetQueryObjectiv(slot.marks[3].id(), GL_QUERY_RESULT_AVAILABLE, &available);
    if (!available) continue;
    GLuint64 at[4] = {};
    for (int m = 0; m < 4; ++m) glGetQueryObjectui64v(slot.marks[m].id(), GL_QUERY_RESULT, &at[m]);
    const auto seconds = [&](int from) { return double(at[from + 1] - at[from]) * 1e-9; };
    newest = TimeSplit{seconds(0), seconds(1), seconds(2)};
    slot.pending = false;
  }
  return newest;
}

TreeGravity::ListStatistics TreeGravity::listStatistics() const {
  ListStatistics statistics;
  statistics.groups = lastGroups_;
  if (lastGroups_ == 0) return statistics;
  std::vector<GLuint> counters(lastGroups_ * 4);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glGetNamedBufferSubData(buffers_.buffer(tree::kGroupStats), 0, GLsizeiptr(counters.size() * 4), counters.data());
  double bodies = 0, bodyInteractions = 0, cellInteractions = 0, tested = 0;
  for (std::size_t g = 0; g < lastGroups_; ++g) {
    const double members = double(std::min(lastGroupSize_, lastBodies_ - g * lastGroupSize_));
    statistics.stackOverflows += counters[4 * g + 3] & 0xffffu;
    statistics.stackRowsSpilled += counters[4 * g + 3] >> 16;
    bodyInteractions += double(counters[4 * g]) * members;
    cellInteractions += double(counters[4 * g + 1]) * members;
    tested += counters[4 * g + 2];
    bodies += members;
    statistics.mostBodyInteractions = std::max<std::size_t>(statistics.mostBodyInteractions, counters[4 * g]);
  }
  statistics.bodyInteractionsPerBody = bodyInteractions / bodies;
  statistics.cellInteractionsPerBody = cellInteractions / bodies;
  statistics.nodesTestedPerGroup = tested / double(lastGroups_);
  return statistics;
}

std::vector<std::uint32_t> TreeGravity::sortedBodies() const {
  std::vector<std::uint32_t> order(lastBodies_);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glGetNamedBufferSubData(buffers_.buffer(tree::kValuesIn), 0, GLsizeiptr(order.size() * 4), order.data());
  return order;
}

std::vector<std::uint64_t> TreeGravity::sortedKeys() const {
  std::vector<std::uint32_t> words(2 * lastBodies_);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glGetNamedBufferSubData(buffers_.buffer(tree::kKeysIn), 0, GLsizeiptr(words.size() * 4), words.data());
  std::vector<std::uint64_t> keys;
  for (std::size_t k = 0; k < lastBodies_; ++k) keys.push_back(std::uint64_t(words[2 * k]) << 32 | words[2 * k + 1]);
  return keys;
}

TreeGravity::ListStatistics TreeGravity::countLists(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                                                    const StepParams& params, const TreeSettings& settings) {
  buildAndWalk(positionMass, size, bodyCount, params, settings, WalkOutput::countOnly);
  return listStatistics();
}

void TreeGravity::buildAndWalk(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount, const StepParams& params,
                               const TreeSettings& chosen, WalkOutput output, GLuint accelerationArray) {
  const TreeSettings settings = withRing(bodyCount, chosen);
  prepare(size, bodyCount, settings);
  TimerSlot* timer = output == WalkOutput::accelerations ? beginTiming() : nullptr;
  const auto mark = [timer](int k) {
    if (timer) glQueryCounter(timer->marks[k].id(), GL_TIMESTAMP);
  };
  mark(0);
  build(positionMass, bodyCount, params, settings);
  mark(1);
  computeMoments(bodyCount, settings);
  mark(2);
  if (output == WalkOutput::accelerations)
    glBindImageTexture(kAccelerationImageUnit, accelerationArray, 0, GL_TRUE, 0, GL_WRITE_ONLY, GL_RGBA32F);
  walk(bodyCount, size, params, settings, output);
  mark(3);
}

}  // namespace nbody
