#include "engines/tree/tree_decomposed.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include <unistd.h>

#include <glm/vec4.hpp>

#include "engines/stage_textures.h"
#include "engines/tree/tree_build.h"
#include "engines/tree/tree_sort.h"
#include "engines/tree/tree_straddling.h"
#include "gl/desktop_calls.h"
#include "gl/limits.h"
#include "gl/state_access.h"

namespace nbody::tree {
namespace {

// lastTimeSplit's marks: the start, after the sorts and migration, the build, the moments, round
// A's LET, the coarse walk, round B's LET and the walk (A and the coarse walk take no time under
// the geometric opening).
constexpr int kTimerSlots = 4, kTimerMarks = 8;

// What a large walker holds only while it uses them (DecomposedTree::holdsLittle): the arrays
// neither the home's sort nor the migration reads, made after the migration; and of them those
// only the build and the moments read, freed after the moments.
constexpr std::array<Binding, 7> kBuildArrays{kSortedBodies, kNodeTest, kNodeQuad, kNodeBoxMin,
                                              kNodeBoxMax,   kParents,  kVisits};
constexpr std::array<Binding, 4> kMomentArrays{kNodeBoxMin, kNodeBoxMax, kParents, kVisits};

GroupRange groupsOf(BodyRange own, std::size_t groupSize) {
  return {own.first / groupSize, (own.last + groupSize - 1) / groupSize};
}

}  // namespace

void DecomposedTree::PhaseClock::open(const char* setting, int rank) {
  began_ = std::chrono::steady_clock::now();
  if (!setting || *setting == '\0' || std::string_view(setting) == "1") return;
  const std::string path = std::string(setting) + "/rank-" + std::to_string(rank) + ".txt";
  live_.reset(std::fopen(path.c_str(), "a"));
  if (!live_) throw std::runtime_error("NBODY_DECOMPOSED_TIMES: could not open " + path);
  // Runs that share the folder follow one another in the file.
  std::fprintf(live_.get(), "# a run of rank %d, process %ld\n", rank, long(::getpid()));
  std::fflush(live_.get());
}

void DecomposedTree::PhaseClock::start() {
  text_.clear();
  ++evaluations_;
  if (on) glFinish();
  last_ = std::chrono::steady_clock::now();
}

void DecomposedTree::PhaseClock::lap(const char* phase) {
  if (!on) return;
  glFinish();
  const auto now = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
  char figure[64];
  std::snprintf(figure, sizeof figure, "%s %.2f ", phase, ms);
  text_ += figure;
  last_ = now;
  if (live_) {
    std::fprintf(live_.get(), "%.3f s: evaluation %zu, %s %.2f ms\n",
                 std::chrono::duration<double>(now - began_).count(), evaluations_, phase, ms);
    std::fflush(live_.get());
  }
}

// Every rank's phases, said by rank 0 (the others' stderr may go nowhere). Every rank calls it.
void DecomposedTree::PhaseClock::report(const Ranks& ranks) const {
  if (!on) return;
  const std::vector<std::string> texts = ranks.gatherText(text_);
  if (!ranks.leader()) return;
  for (std::size_t r = 0; r < texts.size(); ++r)
    std::fprintf(stderr, "nbody: rank %zu, decomposed tree, ms: %s\n", r, texts[r].c_str());
}

DecomposedTree::DecomposedTree(const Ranks& ranks)
    : DecomposedTree(ranks, arrayLimitsOf(gl::limits())) {}

DecomposedTree::DecomposedTree(const Ranks& ranks, const ArrayLimits& arrays)
    : ranks_(ranks), timer_(kTimerSlots, kTimerMarks), arrays_(arrays), kernels_(gl::limits()) {
  // Agreed, so that every rank reports (a collective) where any rank's environment asks.
  const char* times = std::getenv("NBODY_DECOMPOSED_TIMES");
  clock_.on = ranks_.maximum(times != nullptr ? 1 : 0) != 0;
  if (clock_.on) clock_.open(times, ranks_.rank());
}

void DecomposedTree::checkFits(std::size_t bodyCount, int rankCount) {
  if (bodyCount <= kMostBodies) return;
  throw std::runtime_error(std::to_string(bodyCount) + " bodies on " + std::to_string(rankCount) +
                           " ranks: the decomposed tree numbers bodies and nodes in 32-bit words, "
                           "at most " +
                           std::to_string(kMostBodies) + " bodies");
}

std::size_t DecomposedTree::plannedRecords(std::size_t bodyCount, int rankCount) {
  return HeldBodies::plannedShare(bodyCount, rankCount);
}

// Steps 2 and 3: the home (what this rank holds: the last walker's bodies), its box, keys and
// sort, the segment cut, the IDs and state migrated (tree_migrate.h), and the walker's sort under
// the global box.
void DecomposedTree::sortSegment(HeldBodies& held, int stage, std::size_t bodyCount) {
  const std::size_t rank = std::size_t(ranks_.rank());
  const IdList home{held.ids(), held.count()};
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);  // the update pass's stores to the positions
  glBindTextureUnit(kPositionUnit, held.textures().stagePositionMass(stage));
  const std::array<std::uint32_t, 6> bounds =
      findGlobalBounds(kernels_, buffers_, home.count, ranks_);
  clock_.lap("bounds");
  sortByKeys(kernels_, buffers_, home.count);
  clock_.lap("home-sort");
  const std::vector<std::size_t> sendCounts =
      cut_.sendCounts(kernels_, buffers_, home.count, {0, home.buffer}, starts_, ranks_);
  clock_.lap("cut");
  const std::size_t pieceBytes = arrays_.pieceBytes > 0 ? arrays_.pieceBytes : arrays_.blockBytes;
  segmentIds_.migrate(kernels_, home, sendCounts, bodyCount, ranks_, pieceBytes, lap_);
  clock_.lap("migrate");
  segmentIds_.moveState(kernels_, held, ranks_, lap_, pieceBytes);
  if (holdsLittle(bodyCount)) segmentIds_.release();
  buffers_.restoreArrays();
  own_ = {starts_[rank], starts_[rank + 1]};
  walkerSize_ = held.textures().size();
  clock_.lap("move-layout");
  glBindTextureUnit(kPositionUnit, held.textures().stagePositionMass(stage));
  writeBounds(buffers_, bounds);
  sortByKeys(kernels_, buffers_, held.count());
}

// Steps 4 and 5: links through the halo keys, and the straddling nodes.
void DecomposedTree::linkSegment(std::size_t bodyCount) {
  const std::vector<WalkerEnds> ends = gatherEnds(buffers_, own_.size(), ranks_);
  clock_.lap("ends");
  segment_ = segmentOf(ends, own_.first, own_.size(), ranks_.rank());
  straddling_ = straddlingNodes(kernels_, counter_, starts_, ends, ranks_);
  clock_.lap("straddling");
  buildTopology(kernels_, bodyCount, segment_);
  clock_.lap("topology");
  writeStraddlingNodes(buffers_, straddling_, segment_);
}

// Step 7: the local moments, the frontier gathered and placed, the top pass. Returns the slots
// the top area leaves.
SlotMap DecomposedTree::computeAllMoments(TopArea& top, std::size_t bodyCount, double theta) {
  growWalker(top.nodesPlaced() + 1);
  top.placeNodes(buffers_);
  SlotMap slots{true, segment_.first, segment_.count, 0,
                buffers_.writeSlotHash(kernels_, top.hash())};
  computeMoments(kernels_, buffers_, bodyCount, theta, slots);
  clock_.lap("local-moments");
  const std::vector<FrontierItem> frontier = selection_.frontier(kernels_, top, lap_);
  clock_.lap("frontier");
  const std::vector<FrontierItem> every = gatherOnEveryRank(ranks_, std::span(frontier));
  growWalker(std::max(segment_.count, top.nodesPlaced()) + every.size() + 1);
  const std::vector<std::uint32_t> starts = top.placeFrontier(buffers_, every);
  slots.hashEntries = buffers_.writeSlotHash(kernels_, top.hash());
  clock_.lap("place-frontier");
  const GLuint startBuffer = ensureBuffer(topStarts_, starts.size() * 4);
  if (!starts.empty())
    glNamedBufferSubData(startBuffer, 0, GLsizeiptr(starts.size() * 4), starts.data());
  computeMoments(kernels_, buffers_, bodyCount, theta, slots, {startBuffer, starts.size()});
  return slots;
}

void DecomposedTree::evaluate(HeldBodies& held, int stage, std::size_t bodyCount,
                              const StepParams& params, const TreeSettings& settings,
                              RankExchange& exchange, std::size_t chunkBodies) {
  if (params.contactScreen)
    throw std::invalid_argument(
        "the decomposed tree (distribute=decompose, or auto past what one GPU holds replicated) "
        "screens no contacts");
  if (ranks_.count() > kLetMostRanks || bodyCount < 2)
    throw std::invalid_argument("the decomposed tree takes 2 bodies or more on 1 to 32 ranks");
  validate(settings);
  const std::size_t chunks = chunkBodies > 0 ? chunkBodies : letChunkBodies(settings);
  const std::size_t groups = std::size_t(estimateSettings(settings).groupSize);
  if (chunks % groups != 0)  // else a group could span two chunks, in neither's box
    throw std::invalid_argument("a LET chunk holds whole groups: a multiple of " +
                                std::to_string(groups) + " bodies, not " + std::to_string(chunks));
  // The segments: whole groups of the sorted order, cut alike on every rank.
  starts_.clear();
  std::size_t segment = 0;
  for (const BodyRange& range :
       shareOut(bodyCount, std::size_t(estimateSettings(settings).groupSize), ranks_.count())) {
    starts_.push_back(range.first);
    segment = std::max(segment, range.size());
  }
  starts_.push_back(bodyCount);
  // The walker's arrays: its home (sorted first), then its segment (its bodies, and as many
  // internal nodes but where it ends the order, + 1), with an eighth more for what the frontier
  // and the LETs bring; grown where they bring more (growWalker: every array copied, the old ones
  // freed only once the GPU is done with them). Where they are large, those the home's sort does
  // not use come after the migration.
  if (holdsLittle(bodyCount)) buffers_.releaseArrays(kBuildArrays);
  bodyCount_ = bodyCount;
  reserveWalkerRoom(std::max(held.count(), segment + 1));
  kernels_.setStorage(buffers_.storage());
  buffers_.bindAll();
  rounds_.clear();
  clock_.start();
  timer_.begin();
  timer_.mark(0);
  sortSegment(held, stage, bodyCount);
  clock_.lap("walker-sort");
  timer_.mark(1);
  linkSegment(bodyCount);
  clock_.lap("link");
  timer_.mark(2);
  TopArea top(straddling_, segment_, bodyCount);
  SlotMap slots = computeAllMoments(top, bodyCount, settings.theta);
  if (holdsLittle(bodyCount)) buffers_.releaseArrays(kMomentArrays);
  clock_.lap("moments");
  timer_.mark(3);
  glBindTextureUnit(kPositionUnit, held.textures().stagePositionMass(stage));
  glBindImageTexture(kAccelerationImageUnit, held.textures().acceleration(stage), 0, GL_TRUE, 0,
                     GL_WRITE_ONLY, GL_RGBA32F);
  if (opensRelative(settings)) {
    const double scale = settings.theta / settings.estimateTheta;
    slots = letRound(top, slots, selection_.chunks(kernels_, slots, chunks, ranks_.rank(), false),
                     estimateSettings(settings), scale * scale);
    timer_.mark(4);
    coarseWalk(bodyCount, params, settings, slots);
    clock_.lap("coarse-walk");
  } else {
    timer_.mark(4);
  }
  timer_.mark(5);
  slots =
      letRound(top, slots,
               selection_.chunks(kernels_, slots, chunks, ranks_.rank(), opensRelative(settings)),
               settings, 1.0);
  timer_.mark(6);
  walk(bodyCount, params, settings, slots);
  clock_.lap("walk");
  timer_.mark(7);
  closeEvaluation(exchange);
  if (holdsLittle(bodyCount)) buffers_.releaseArrays(kBuildArrays);
}

// Where the tree's arrays are textures (past one storage block: 67M bodies on NVIDIA), a rank
// holds its migration's buffers, the arrays of the build (kBuildArrays) and those of the moments
// alone (kMomentArrays) only while it uses them (round 58): at that size allocating them again
// costs little against an evaluation, and the migration, the build and the walk no longer need
// room at once.
bool DecomposedTree::holdsLittle(std::size_t bodyCount) const {
  return storageFor(bodyCount, arrays_).inTextures;
}

// After the walk: every rank's misses (a fault) and lists' interactions added up in one sum, the
// LETs' bytes counted.
void DecomposedTree::closeEvaluation(RankExchange& exchange) {
  std::array<std::int64_t, 2> sums{std::int64_t(buffers_.readSlotMisses()),
                                   std::int64_t(walk_.listStatistics(buffers_).interactions)};
  ranks_.sum(sums);
  if (sums[0] != 0)
    throw std::logic_error("a walker missed records its local essential tree should hold");
  interactions_ = std::uint64_t(sums[1]);
  std::size_t sent = 0, received = 0;
  for (const LetRound& round : rounds_) {
    sent += round.bytesSent;
    received += round.bytesReceived;
  }
  exchange.countLet(sent, received, own_.size() + rounds_.back().bodiesReceived,
                    buffers_.capacity());
  exchange.forceDone();  // the miss count read above waited for the walk
  clock_.lap("close");
  clock_.report(ranks_);
}

// Room for `records` slots of bodies and of nodes (+ 1) in the walker's arrays, keeping what they
// hold; an eighth more where they grow, so that the next evaluations' LETs mostly fit.
void DecomposedTree::growWalker(std::size_t records) {
  if (records > buffers_.capacity()) reserveWalkerRoom(records);
}

// Room for `records` records in the walker's arrays and an eighth more, as far as the GPU's
// arrays go (past them a texture or a buffer would not be made, and the walk would read nothing
// there); refused in one line where `records` themselves pass them.
void DecomposedTree::reserveWalkerRoom(std::size_t records) {
  const std::size_t most = mostRecords(storageFor(bodyCount_, arrays_), arrays_);
  if (records > most)
    throw std::runtime_error(
        "rank " + std::to_string(ranks_.rank()) + "'s part of the tree needs " +
        std::to_string(records) +
        " records (its bodies and nodes, and the other ranks' local essential trees), over the " +
        std::to_string(most) + " this GPU's tree arrays hold: run on more ranks");
  buffers_.reserveWalker(std::min(HeldBodies::withRoom(records), most), bodyCount_, arrays_);
}

std::optional<std::vector<std::pair<std::string, double>>> DecomposedTree::lastTimeSplit() {
  const std::optional<std::vector<double>> s = timer_.takeNewest();
  if (!s) return std::nullopt;
  const std::vector<double>& d = *s;  // between marks 0-1, 1-2, ... 6-7
  return std::vector<std::pair<std::string, double>>{{"sort and migration", d[0]},
                                                     {"build", d[1]},
                                                     {"moments", d[2]},
                                                     {"LET", d[3] + d[5]},
                                                     {"walk", d[4] + d[6]}};
}

SlotMap DecomposedTree::letRound(const TopArea& top, const SlotMap& held, std::vector<LetChunk> own,
                                 const TreeSettings& settings, double openingScale2) {
  clock_.lap("chunks");
  std::vector<LetChunk> chunks = gatherOnEveryRank(ranks_, std::span<const LetChunk>(own));
  std::erase_if(chunks,
                [&](const LetChunk& chunk) { return chunk.lo[3] == std::uint32_t(ranks_.rank()); });
  const LetMarks marks =
      selection_.select(kernels_, held, chunks, starts_, ranks_.rank(), settings, openingScale2);
  if (ranks_.maximum(marks.overflowed ? 1 : 0) != 0)
    throw std::runtime_error("a local essential tree's walk outgrew its stack");
  clock_.lap("select");
  const LetParts sent = selection_.pack(kernels_, marks, top, held, ranks_.count(), lap_);
  clock_.lap("pack");
  const LetParts received = selection_.exchange(sent, ranks_, lap_);
  clock_.lap("send");
  rounds_.push_back({sent.nodes.size(), sent.bodies.size(), sent.bytes(), received.nodes.size(),
                     received.bodies.size(), received.bytes()});
  growWalker(LetSelection::slotsToPlace(received, top, held));
  const SlotMap placed = selection_.place(kernels_, buffers_, received, top, held, ranks_.rank());
  clock_.lap("place");
  return placed;
}

// The walk of this walker's own groups; its ring tuned as one GPU's (RingTuner) by the walker's
// segment: the ring changes no bit, and each rank may keep another.
void DecomposedTree::walk(std::size_t bodyCount, const StepParams& params,
                          const TreeSettings& settings, const SlotMap& slots) {
  const GroupRange groups = groupsOf(own_, std::size_t(settings.groupSize));
  ring_.evaluate(
      own_.size(), settings, kernels_.limits(),
      [&](const TreeSettings& trial) {
        walk_.program(kernels_, trial, params, WalkOutput::accelerations, slots);
      },
      [&](const TreeSettings& ring, bool) {
        walk_.run(kernels_, buffers_, bodyCount, walkerSize_, params, ring,
                  WalkOutput::accelerations, groups, {}, slots);
        glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT |
                        GL_TEXTURE_FETCH_BARRIER_BIT);
      });
}

void DecomposedTree::coarseWalk(std::size_t bodyCount, const StepParams& params,
                                const TreeSettings& settings, const SlotMap& slots) {
  const TreeSettings coarse = estimateSettings(settings);
  walk_.run(kernels_, buffers_, bodyCount, walkerSize_, params, coarse, WalkOutput::estimates,
            groupsOf(own_, std::size_t(coarse.groupSize)), {}, slots);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
}

}  // namespace nbody::tree
