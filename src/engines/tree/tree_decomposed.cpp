#include "engines/tree/tree_decomposed.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <glm/vec4.hpp>

#include "engines/stage_textures.h"
#include "engines/tree/tree_build.h"
#include "engines/tree/tree_share.h"
#include "engines/tree/tree_sort.h"
#include "engines/tree/tree_straddling.h"
#include "gl/desktop_calls.h"
#include "gl/limits.h"
#include "gl/state_access.h"

namespace nbody::tree {
namespace {

// `texture` as an RGBA32F texture of `target` (2-D, or a 2-D array of one layer) and `size`
// texels: kept where it is one already.
void ensureTexture(DecomposedTree::SizedTexture& texture, GLenum target, glm::ivec2 size) {
  if (texture.texture.id() != 0 && texture.size == size) return;
  texture.texture = gl::Texture(gl::newTexture(target));
  texture.size = size;
  gl::allocateTexture(texture.texture.id(), target, GL_RGBA32F, {size.x, size.y, 1});
}

GroupRange groupsOf(BodyRange own, std::size_t groupSize) {
  return {own.first / groupSize, (own.last + groupSize - 1) / groupSize};
}

}  // namespace

void DecomposedTree::PhaseClock::start() {
  on_ = std::getenv("NBODY_DECOMPOSED_TIMES") != nullptr;
  text_.clear();
  if (on_) glFinish();
  last_ = std::chrono::steady_clock::now();
}

void DecomposedTree::PhaseClock::lap(const char* phase) {
  if (!on_) return;
  glFinish();
  const auto now = std::chrono::steady_clock::now();
  char figure[64];
  std::snprintf(figure, sizeof figure, "%s %.2f ", phase,
                std::chrono::duration<double, std::milli>(now - last_).count());
  text_ += figure;
  last_ = now;
}

void DecomposedTree::PhaseClock::report(int rank) const {
  if (on_) std::fprintf(stderr, "nbody: rank %d, decomposed tree, ms: %s\n", rank, text_.c_str());
}

DecomposedTree::DecomposedTree(const Ranks& ranks)
    : DecomposedTree(ranks, arrayLimitsOf(gl::limits())) {}

DecomposedTree::DecomposedTree(const Ranks& ranks, const ArrayLimits& arrays)
    : ranks_(ranks),
      arrays_(arrays),
      kernels_(gl::limits()),
      gather_(shareProgram(true, true)),
      scatter_(shareProgram(false, true)) {}

// Steps 2 and 3: the home (the last walker's bodies: tree_migrate.h), its box, keys and sort, the
// segment cut, the IDs migrated, and the walker's sort under the global box. Homes and walkers
// fetch their bodies by ID from the replicated state.
void DecomposedTree::sortSegment(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                                 const TreeSettings& settings) {
  const std::size_t rank = std::size_t(ranks_.rank());
  const IdList home = segmentIds_.home(bodyCount, std::size_t(size.x), ranks_);
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);  // the update pass's stores to the positions
  fetchBodies(positionMass, home, homeBodies_);
  glBindTextureUnit(kPositionUnit, homeBodies_.texture.id());
  const std::array<std::uint32_t, 6> bounds =
      findGlobalBounds(kernels_, buffers_, home.count, ranks_);
  clock_.lap("bounds");
  sortByKeys(kernels_, buffers_, home.count);
  clock_.lap("home-sort");
  starts_.clear();
  const std::size_t unit = std::size_t(estimateSettings(settings).groupSize);
  for (const BodyRange& segment : shareOut(bodyCount, unit, ranks_.count()))
    starts_.push_back(segment.first);
  starts_.push_back(bodyCount);
  const std::vector<std::size_t> sendCounts =
      cut_.sendCounts(kernels_, buffers_, home.count, {0, home.buffer}, starts_, ranks_);
  clock_.lap("cut");
  walkerIds_ = segmentIds_.migrate(kernels_, sendCounts, bodyCount, ranks_);
  clock_.lap("migrate");
  own_ = {starts_[rank], starts_[rank + 1]};
  fetchBodies(positionMass, walkerIds_, walkerBodies_);
  walkerSize_ = walkerBodies_.size;
  clock_.lap("fetch");
  glBindTextureUnit(kPositionUnit, walkerBodies_.texture.id());
  writeBounds(buffers_, bounds);
  sortByKeys(kernels_, buffers_, walkerIds_.count);
}

// The positions of the bodies `ids` names, from the replicated ones, into `bodies` (body i at
// texel i; a texture as StageTextures sizes one).
void DecomposedTree::fetchBodies(GLuint positionMass, IdList ids, SizedTexture& bodies) {
  ensureTexture(
      bodies, GL_TEXTURE_2D,
      StageTextures::sizeFor(std::max<std::size_t>(ids.count, 1), gl::limits().maxTextureSize));
  if (ids.count == 0) return;
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLetChunksBinding, ids.buffer);
  glBindTextureUnit(kPositionUnit, positionMass);
  glBindImageTexture(0, bodies.texture.id(), 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32F);
  gl::UniformProgram& program = kernels_.use(Kernel::fetch, {{"WORDS", 0}});
  program.setUint("uCount", ids.count);
  kernels_.dispatch(ceilDiv(ids.count, kElementThreads));
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
}

// Steps 4 and 5: links through the halo keys, and the straddling nodes.
void DecomposedTree::linkSegment(std::size_t bodyCount) {
  const std::vector<WalkerEnds> ends = gatherEnds(buffers_, own_.size(), ranks_);
  segment_ = segmentOf(ends, own_.first, own_.size(), ranks_.rank());
  straddling_ = straddlingNodes(kernels_, counter_, starts_, ends, ranks_);
  buildTopology(kernels_, bodyCount, segment_);
  writeStraddlingNodes(buffers_, straddling_, segment_);
}

// Step 7: the local moments, the frontier gathered and placed, the top pass. Returns the slots
// the top area leaves.
SlotMap DecomposedTree::computeAllMoments(TopArea& top, std::size_t bodyCount, double theta) {
  top.placeNodes(buffers_);
  SlotMap slots{true, segment_.first, segment_.count, 0,
                buffers_.writeSlotHash(kernels_, top.hash())};
  computeMoments(kernels_, buffers_, bodyCount, theta, slots);
  clock_.lap("local-moments");
  const std::vector<FrontierItem> frontier = selection_.frontier(kernels_, top);
  clock_.lap("frontier");
  const std::vector<std::uint32_t> starts =
      top.placeFrontier(buffers_, gatherOnEveryRank(ranks_, std::span(frontier)));
  slots.hashEntries = buffers_.writeSlotHash(kernels_, top.hash());
  clock_.lap("place-frontier");
  const GLuint startBuffer = ensureBuffer(topStarts_, starts.size() * 4);
  if (!starts.empty())
    glNamedBufferSubData(startBuffer, 0, GLsizeiptr(starts.size() * 4), starts.data());
  computeMoments(kernels_, buffers_, bodyCount, theta, slots, {startBuffer, starts.size()});
  return slots;
}

void DecomposedTree::evaluate(GLuint positionMass, glm::ivec2 size, std::size_t bodyCount,
                              const StepParams& params, const TreeSettings& settings,
                              GLuint accelerationArray, RankExchange& exchange,
                              std::size_t chunkBodies) {
  if (params.contactScreen) throw std::invalid_argument("the decomposed tree screens no contacts");
  if (ranks_.count() > kLetMostRanks || bodyCount < 2)
    throw std::invalid_argument("the decomposed tree takes 2 bodies or more on 1 to 32 ranks");
  validate(settings);
  const std::size_t chunks = chunkBodies > 0 ? chunkBodies : letChunkBodies(settings);
  const std::size_t groups = std::size_t(estimateSettings(settings).groupSize);
  if (chunks % groups != 0)  // else a group could span two chunks, in neither's box
    throw std::invalid_argument("a LET chunk holds whole groups: a multiple of " +
                                std::to_string(groups) + " bodies, not " + std::to_string(chunks));
  buffers_.reserve(bodyCount, arrays_);
  kernels_.setStorage(buffers_.storage());
  buffers_.bindAll();
  rounds_.clear();
  clock_.start();
  sortSegment(positionMass, size, bodyCount, settings);
  clock_.lap("walker-sort");
  linkSegment(bodyCount);
  clock_.lap("link");
  TopArea top(straddling_, segment_, bodyCount);
  SlotMap slots = computeAllMoments(top, bodyCount, settings.theta);
  clock_.lap("moments");
  ensureTexture(walkerAccelerations_, GL_TEXTURE_2D_ARRAY, walkerSize_);
  glBindTextureUnit(kPositionUnit, walkerBodies_.texture.id());
  glBindImageTexture(kAccelerationImageUnit, walkerAccelerations_.texture.id(), 0, GL_TRUE, 0,
                     GL_WRITE_ONLY, GL_RGBA32F);
  if (opensRelative(settings)) {
    const double scale = settings.theta / settings.estimateTheta;
    slots = letRound(top, slots, selection_.chunks(kernels_, slots, chunks, ranks_.rank(), false),
                     estimateSettings(settings), scale * scale);
    coarseWalk(bodyCount, params, settings, slots);
    clock_.lap("coarse-walk");
  }
  slots =
      letRound(top, slots,
               selection_.chunks(kernels_, slots, chunks, ranks_.rank(), opensRelative(settings)),
               settings, 1.0);
  beginShare(bodyCount, exchange);
  walk(bodyCount, params, settings, slots);
  clock_.lap("walk");
  finishShare(bodyCount, accelerationArray);
  clock_.lap("share");
  // After the sharing, which the check's collective would otherwise hold up.
  if (ranks_.maximum(std::int64_t(buffers_.readSlotMisses())) != 0)
    throw std::logic_error("a walker missed records its local essential tree should hold");
  std::size_t sent = 0, received = 0;
  for (const LetRound& round : rounds_) {
    sent += round.bytesSent;
    received += round.bytesReceived;
  }
  exchange.countLet(sent, received, own_.size() + rounds_.back().bodiesReceived);
  clock_.report(ranks_.rank());
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
  const LetParts sent = selection_.pack(kernels_, marks, top, held, ranks_.count());
  clock_.lap("pack");
  const LetParts received = exchangeLet(sent, ranks_);
  clock_.lap("send");
  rounds_.push_back({sent.nodes.size(), sent.bodies.size(), sent.bytes(), received.nodes.size(),
                     received.bodies.size(), received.bytes()});
  const SlotMap placed = selection_.place(kernels_, buffers_, received, top, held, ranks_.rank());
  clock_.lap("place");
  return placed;
}

// The walk of this walker's own groups; its ring tuned as one GPU's (RingTuner) by the walker's
// segment: the ring changes no bit, and each rank may keep another.
void DecomposedTree::walk(std::size_t bodyCount, const StepParams& params,
                          const TreeSettings& settings, const SlotMap& slots) {
  const GroupRange groups = groupsOf(own_, std::size_t(settings.groupSize));
  const std::size_t groupSize = std::size_t(settings.groupSize);
  // Each part handed on as the next is walked; trials gather in finishShare.
  const WalkParts parts{partGroupsOf(groups.last - groups.first, kernels_.limits()),
                        [this, groupSize](GroupRange part) { gatherUpTo(part.last * groupSize); }};
  ring_.evaluate(
      own_.size(), settings, kernels_.limits(),
      [&](const TreeSettings& trial) {
        walk_.program(kernels_, trial, params, WalkOutput::accelerations, slots);
      },
      [&](const TreeSettings& ring, bool trial) {
        walk_.run(kernels_, buffers_, bodyCount, walkerSize_, params, ring,
                  WalkOutput::accelerations, groups, trial ? WalkParts{} : parts, slots);
        glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
      });
}

void DecomposedTree::coarseWalk(std::size_t bodyCount, const StepParams& params,
                                const TreeSettings& settings, const SlotMap& slots) {
  const TreeSettings coarse = estimateSettings(settings);
  walk_.run(kernels_, buffers_, bodyCount, walkerSize_, params, coarse, WalkOutput::estimates,
            groupsOf(own_, std::size_t(coarse.groupSize)), {}, slots);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
}

// Every segment's accelerations, with their bodies' IDs (16 bytes a body, in segment order), to
// every rank through `exchange`, streamed as the walk finishes parts of this rank's (gatherUpTo),
// and stored by ID into layer 0 of the acceleration array (finishShare).
void DecomposedTree::beginShare(std::size_t bodyCount, RankExchange& exchange) {
  const GLuint shared = ensureBuffer(shared_, bodyCount * 16);
  std::vector<BodyRange> segments;
  for (std::size_t r = 0; r + 1 < starts_.size(); ++r)
    segments.push_back({starts_[r], starts_[r + 1]});
  exchange.beginBufferExchange(shared, 16, segments);
  exchange_ = &exchange;
  gathered_ = own_.first;
  bodyCount_ = bodyCount;
}

// Own sorted bodies up to `body` copied out of the walker's image and handed to the exchange.
void DecomposedTree::gatherUpTo(std::size_t body) {
  body = std::min(body, own_.last);
  if (body > gathered_) {
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
    runShare(gather_,
             {buffers_.buffer(kValuesIn), shared_.buffer.id(), walkerAccelerations_.texture.id(),
              walkerIds_.buffer},
             {gathered_, body}, bodyCount_, body - gathered_, own_.first);
    gathered_ = body;
  }
  exchange_->partWritten(body);
}

void DecomposedTree::finishShare(std::size_t bodyCount, GLuint accelerationArray) {
  gatherUpTo(own_.last);  // all of it, where the walk went without parts (tuning the ring)
  exchange_->finishBufferExchange();
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);  // this rank's elements, which the gather wrote
  runShare(scatter_, {0, shared_.buffer.id(), accelerationArray}, own_, bodyCount, bodyCount);
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
}

}  // namespace nbody::tree
