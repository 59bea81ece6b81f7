#include "engines/gpu_engine.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engines/gpu_capacity.h"
#include "gl/texture_rows.h"
#include "parallel/ranks.h"

namespace nbody {
namespace {

// Every rank's bodies of `values` (valid in this rank's share), from every rank.
void gatherShares(std::vector<glm::dvec3>& values, const std::vector<BodyRange>& shares,
                  std::size_t bodies) {
  std::vector<BodyRange> clipped;
  for (const BodyRange& share : shares)
    clipped.push_back({std::min(share.first, bodies), std::min(share.last, bodies)});
  std::vector<std::size_t> units;
  for (const BodyRange& share : clipped) units.push_back(share.size());
  ranks().allGather(std::as_writable_bytes(std::span(values)), units, sizeof(glm::dvec3));
}

}  // namespace

GpuEngine::GpuEngine(std::vector<EngineOption> options) : options_(std::move(options)) {
  if (ranks().distributed()) exchange_ = std::make_unique<RankExchange>(ranks());
}

std::optional<RankExchange::Times> GpuEngine::exchangeTimes() const {
  if (!exchange_) return std::nullopt;
  return exchange_->times();
}

void GpuEngine::clearExchangeTimes() {
  if (exchange_) exchange_->clearTimes();
}

std::vector<BodyRange> GpuEngine::bodyShares() const {
  return shareOut(paddedCount(), shareGranule(), ranks().count());
}

std::optional<BodyRange> GpuEngine::ownBodies() const {
  if (!exchange_ || shareGranule() == 0) return std::nullopt;
  return bodyShares()[std::size_t(ranks().rank())];
}

void GpuEngine::exchangeStage(const StagePass& pass) {
  if (!exchange_ || shareGranule() == 0) return;
  // The next stage's force reads every body's position; the step's velocities are every rank's
  // once it ends (drawing, diagnostics, downloads). Intermediate velocities and the stored
  // accelerations are read only by the updates of the same bodies.
  std::vector<GLuint> written{textures_.outputPositionMass(pass.stage, pass.stageCount())};
  if (pass.stage + 1 == pass.stageCount())
    written.push_back(textures_.outputVelocity(pass.stage, pass.stageCount()));
  exchange_->exchangeTextures(written, textures_.size(), bodyShares());
}

std::string GpuEngine::device() const {
  return reinterpret_cast<const char*>(glGetString(GL_RENDERER));
}

EngineOption* GpuEngine::findOption(std::string_view name) {
  auto found = std::find_if(options_.begin(), options_.end(),
                            [&](const EngineOption& o) { return o.name == name; });
  return found == options_.end() ? nullptr : &*found;
}

const EngineOption& GpuEngine::option(std::string_view name) const {
  return const_cast<GpuEngine*>(this)->mutableOption(name);
}

EngineOption& GpuEngine::mutableOption(std::string_view name) {
  if (EngineOption* found = findOption(name)) return *found;
  throw std::logic_error("no engine option " + std::string(name));
}

void GpuEngine::setOption(const std::string& name, const std::string& value) {
  EngineOption* found = findOption(name);
  if (!found) return Engine::setOption(name, value);
  reusedForce_.forget();  // a recomputed force may round differently in another variant
  const std::string before = found->value;
  chooseOption(*found, value);
  optionsChanged();
  if (bodyCount_ == 0) return;
  try {
    checkFits(bodyCount_, textures_.size());
  } catch (const std::runtime_error& e) {
    found->value = before;
    optionsChanged();
    throw UsageError(e.what());
  }
}

void GpuEngine::checkFits(std::size_t bodies, glm::ivec2 size) const {
  // A state with no whole texture must stay apart (an option that gathers it is refused).
  if (size.x == 0) wholeSizeFor(bodies, keptApart(bodies));
  checkAccelerationSlicesFit(bodies, size, accelerationLayout().slices, gl::limits());
  checkLayout(bodies, size);
}

glm::ivec2 GpuEngine::wholeSizeFor(std::size_t bodies, bool apart) const {
  const gl::Limits& limits = gl::limits();
  if (bodies == 0 || StageTextures::fits(bodies, limits.maxTextureSize))
    return StageTextures::sizeFor(bodies, limits.maxTextureSize);
  if (apart) return {0, 0};
  return checkStateTextures(bodies, limits,
                            holdsOwnBodies(bodies)
                                ? "past it the ranks keep their bodies apart where nothing reads "
                                  "them whole (simulate --snapshot-files ranks, bench without "
                                  "readback)"
                                : "");
}

void GpuEngine::checkCapacity(std::size_t bodies) const {
  const gl::Limits& limits = gl::limits();
  const int slices = accelerationLayout().slices;
  const glm::ivec2 size = wholeSizeFor(bodies, keptApart(bodies));
  checkAccelerationSlicesFit(bodies, size, slices, limits);
  if (!holdsOwnBodies(bodies)) {
    checkGpuMemory(bodies, size, slices, extraBytes(bodies), limits);
  } else {
    // Each rank's state textures hold its share (an eighth more as they grow); unless gathering
    // is deferred, the whole state's current two textures and the gather's records (one storage
    // block at most) besides.
    const double whole = gatherDeferred_ ? 0.0
                                         : 32.0 * double(size.x) * double(size.y) +
                                               std::min(36.0 * double(bodies),
                                                        double(limits.maxShaderStorageBlockBytes));
    const std::size_t share = HeldBodies::plannedShare(bodies, ranks().count());
    checkGpuMemory(bodies,
                   checkStateTextures(share, limits,
                                      "a rank's share, with room, of " + std::to_string(bodies) +
                                          " bodies on " + std::to_string(ranks().count()) +
                                          " ranks: run on more ranks"),
                   slices, extraBytes(bodies) + whole, limits);
  }
  checkLayout(bodies, size);
}

// What an upload of `bodies` bodies starts with: the size of the whole state's textures.
glm::ivec2 GpuEngine::replaceState(std::size_t bodies) {
  // The textures about to be cleared and rewritten may last have been written by image stores;
  // without this bit OpenGL does not order the rewrite after them.
  gl::memoryBarrier(gl::barrier::textureUpdate);
  const glm::ivec2 size = wholeSizeFor(bodies, keptApart(bodies));
  // Refused before anything changes, for callers that did not ask checkCapacity; setOption checks
  // option changes, so a step never meets a layout the GPU cannot run.
  checkFits(bodies, size);
  reusedForce_.forget();
  held_.reset();
  ungathered_ = false;
  bodyCount_ = 0;  // no state until the upload ends: one that fails leaves none to step
  return size;
}

void GpuEngine::upload(const State& state) {
  const glm::ivec2 size = replaceState(state.size());
  if (holdsOwnBodies(state.size())) {
    // Each rank holds its rows from here on; the whole state's textures hold it only while
    // something may read it (never while gathering is deferred).
    textures_.release(size);
    if (!gatherDeferred_) {
      textures_.allocateBase();
      textures_.upload(state);
    }
    ungathered_ = gatherDeferred_;
    // Each rank's rows: whole rows of the whole texture, or of the largest where there is none.
    held_ = std::make_unique<HeldBodies>(state, size.x > 0 ? size.x : gl::limits().maxTextureSize,
                                         ranks());
  } else {
    textures_.allocate(size);
    textures_.upload(state);
  }
  bodyCount_ = state.size();
  ids_ = state.id;
}

namespace {

// The IDs of a state of `total` bodies of which every rank holds `part`: none where every body's
// is its index + 1 (a scene's), else every body's, gathered. Every rank calls it alike.
std::vector<std::uint64_t> wholeIdsOf(const StatePart& part, std::size_t total) {
  std::int64_t renamed = 0;
  for (std::size_t k = 0; k < part.rows.size(); ++k)
    renamed += bodyIdInPart(part, k) != part.indices[k] + 1;
  if (ranks().sum(renamed) == 0) return {};
  struct IndexedId {
    std::uint64_t index, id;
  };
  std::vector<IndexedId> own;
  for (std::size_t k = 0; k < part.rows.size(); ++k)
    own.push_back({part.indices[k], bodyIdInPart(part, k)});
  std::vector<std::uint64_t> ids(total);
  for (const IndexedId& one : gatherOnEveryRank(ranks(), std::span<const IndexedId>(own)))
    ids.at(std::size_t(std::min<std::uint64_t>(one.index, total))) = one.id;
  return ids;
}

}  // namespace

// Held where the ranks hold their own bodies and nothing reads the whole: no rank makes it.
void GpuEngine::uploadPart(const StatePart& part, std::size_t total) {
  if (!holdsOwnBodies(total) || !gatherDeferred_) return Engine::uploadPart(part, total);
  checkPartsOfState(part, total);  // the parts' disjointness is not checked here
  textures_.release(replaceState(total));
  held_ = std::make_unique<HeldBodies>(part.rows, part.indices);
  ungathered_ = true;
  bodyCount_ = total;
  ids_ = wholeIdsOf(part, total);
}

State GpuEngine::download() {
  checkGathered();
  State state = textures_.download(bodyCount_);
  if (!ids_.empty()) state.id = ids_;
  return state;
}

// A rank that holds its own bodies reads them alone, gathered or not.
StatePart GpuEngine::downloadPart() {
  if (!held_) return Engine::downloadPart();
  StatePart part;
  if (held_->count() > 0) part.rows = held_->textures().download(held_->count());
  const std::vector<std::uint32_t> indices = held_->readIds();
  part.indices.assign(indices.begin(), indices.end());
  for (std::size_t k = 0; k < indices.size(); ++k)
    part.rows.id[k] = ids_.empty() ? indices[k] + std::uint64_t(1) : ids_.at(indices[k]);
  return part;
}

std::optional<GpuStateView> GpuEngine::gpuState() const {
  if (bodyCount_ == 0) return std::nullopt;
  checkGathered();
  return textures_.view(bodyCount_);
}

void GpuEngine::finish() { glFinish(); }

void GpuEngine::runStage(const StagePass& pass) {
  if (pass.force == StageForce::evaluated) {
    if (runFusedStage(pass)) return;
    evaluateForce(pass);
  }
  runUpdate(pass);
}

void GpuEngine::beginPasses() {
  if (bodyCount_ == 0) throw std::logic_error(name() + " engine: step before upload");
  const AccelerationLayout layout = accelerationLayout();
  holdAsAsked();
  textures_.setAccelerationLayout(layout.layers, layout.slices);
  if (textures_.takeReallocated()) {
    texturesReallocated();
    if (!held_) reusedForce_.forget();  // the held bodies' textures keep theirs
  }
  beginSteps();
}

void GpuEngine::gatherHeld() {
  if (!held_ || !ungathered_) return;
  textures_.allocateBase();
  held_->gatherInto(textures_, bodyCount_, ranks());
  ungathered_ = false;
}

void GpuEngine::releaseWholeState() {
  if (!held_) return;
  textures_.release(textures_.size());
  ungathered_ = true;
}

void GpuEngine::checkGathered() const {
  if (ungathered_) throw std::logic_error("the ranks' bodies were not gathered: deferGathering");
}

void GpuEngine::deferGathering(bool deferred) {
  // Refused, changing nothing, where the whole state would fit no texture (every rank alike).
  if (!deferred && held_ && textures_.size().x == 0) wholeSizeFor(bodyCount_, false);
  gatherDeferred_ = deferred;
  if (deferred)
    releaseWholeState();
  else
    gatherHeld();
}

void GpuEngine::holdAsAsked() {
  if (!holdsOwnBodies(bodyCount_)) {
    gatherHeld();   // where deferred
    held_.reset();  // the whole state is current
    textures_.completeStages();
    return;
  }
  if (!held_) {
    held_ = std::make_unique<HeldBodies>(textures_, bodyCount_, ranks());
    reusedForce_.forget();
    textures_.keepBaseOnly();
    if (gatherDeferred_) releaseWholeState();
  }
  held_->textures().reserveStages(textures_.stagesReserved());
  held_->textures().takeReallocated();  // only ever added to: no texel of a body is lost
}

void GpuEngine::endPasses() {
  // Leave nothing of ours bound: another component sharing the context (the renderer, a UI) may
  // save and restore bindings, and a name bound here may be deleted with this engine.
  glUseProgram(0);
  glBindVertexArray(0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

void GpuEngine::step(const Method& method, const StepParams& params, int steps) {
  if (method.stageCount() > maxStageCount())
    throw std::logic_error("method " + method.name + " has more stages than the engine allocated");
  if (bodyCount_ > 0) textures_.reserveStages(method.stageCount());
  beginPasses();
  if (screen_) beginContactScreens(steps);
  for (int s = 0; s < steps; ++s) {
    const StepParams stepParams = params.atStage(s, 0.0);
    const bool reuseLastForce = reusedForce_.available(method, stepParams);
    for (int stage = 0; stage < method.stageCount(); ++stage) {
      StepParams stageParams = stepParams.atStage(0, method.stageFraction(stage));
      const StageForce force = stageForce(method, stage, reuseLastForce);
      if (screen_ && force == StageForce::evaluated) screenBoundary(method, stage, s, stageParams);
      const StagePass pass{method, stageParams, stage, force, method.storesForce(stage)};
      if (exchange_) exchange_->beginShare();
      runStage(pass);
      exchangeStage(pass);
    }
    working().finishStep(method);
    reusedForce_.afterStep(method, stepParams);
  }
  if (held_ && steps > 0) ungathered_ = true;
  if (!gatherDeferred_) gatherHeld();
  if (exchange_)
    exchange_->countStateTextures(textures_.bytes() + (held_ ? held_->textures().bytes() : 0));
  endPasses();
}

void GpuEngine::evaluateCurrentForce(const StepParams& params) {
  // The first stage of a one-stage method, made to store its force: its other outputs go to the
  // next step's textures, which the state does not move into (no finishStep).
  beginPasses();
  if (exchange_) exchange_->beginShare();
  runStage({*findMethod("euler"), params, 0, StageForce::evaluated, true});
  endPasses();
  reusedForce_.forget();  // the first stage's acceleration is this force now
}

std::vector<glm::dvec3> GpuEngine::currentAccelerations(const StepParams& params) {
  evaluateCurrentForce(params);
  if (held_) return held_->gatherAccelerations(0, bodyCount_, ranks());
  std::vector<glm::dvec3> accelerations = readAccelerations(0);
  if (const auto own = ownBodies()) gatherShares(accelerations, bodyShares(), bodyCount_);
  return accelerations;
}

std::vector<glm::dvec3> GpuEngine::currentAccelerationsOf(const StepParams& params,
                                                          std::span<const std::uint32_t> ids) {
  if (!holdsOwnBodies(bodyCount_)) return Engine::currentAccelerationsOf(params, ids);
  evaluateCurrentForce(params);  // makes held_ where there was none
  std::vector<glm::dvec3> accelerations;
  for (const glm::vec4& texel :
       held_->texelsOf(held_->textures().acceleration(0), true, ids, ranks()))
    accelerations.push_back(glm::dvec3(glm::vec3(texel)));
  return accelerations;
}

std::vector<glm::dvec3> GpuEngine::readAccelerations(int stage) const {
  gl::memoryBarrier(gl::barrier::textureUpdate);
  const AccelerationLayout layout = accelerationLayout();
  const glm::ivec2 size = textures_.size();
  const std::size_t width = std::size_t(size.x / layout.layers),
                    height = std::size_t(size.y) * layout.slices;
  std::vector<float> texels(width * height * std::size_t(layout.layers) * 4);
  gl::readTextureRows(
      textures_.acceleration(stage),
      {{int(width), int(height), layout.layers}, GL_RGBA, GL_FLOAT, 16, GL_TEXTURE_2D_ARRAY},
      texels.data());
  // Body (x, y) sits at (x / L, y + s H) of layer x % L, once for each slice s.
  std::vector<glm::dvec3> accelerations(bodyCount_, glm::dvec3(0.0));
  for (std::size_t i = 0; i < bodyCount_; ++i) {
    const std::size_t x = i % std::size_t(size.x), y = i / std::size_t(size.x);
    const std::size_t layer = x % std::size_t(layout.layers),
                      column = x / std::size_t(layout.layers);
    glm::vec3 sum(0.0f);  // in float, in slice order, as the update passes add them
    for (int s = 0; s < layout.slices; ++s) {
      const std::size_t at =
          ((layer * height + y + std::size_t(s) * std::size_t(size.y)) * width + column) * 4;
      sum += glm::vec3(texels[at], texels[at + 1], texels[at + 2]);
    }
    accelerations[i] = glm::dvec3(sum);
  }
  return accelerations;
}

bool GpuEngine::screenContacts(const std::optional<ContactScreenPass>& bodies) {
  // The flags' binding must exist (OpenGL promises 8; the tree already needs 19).
  if (bodies && gl::limits().maxShaderStorageBufferBindings <= GLint(kContactFlagsBinding))
    return false;
  screen_ = bodies;
  screened_.clear();
  return true;
}

void GpuEngine::beginContactScreens(int steps) {
  const std::size_t words = std::size_t(steps) + 1;
  contactFlags_.fill(words, 0);
  contactFlags_.bindAt(kContactFlagsBinding);
  screened_.assign(words, false);
}

void GpuEngine::screenBoundary(const Method& method, int stage, int step, StepParams& stageParams) {
  const bool atStart = stage == 0;
  const bool atEnd = method.firstSameAsLast() && stage == method.stageCount() - 1;
  if (!atStart && !atEnd) return;
  const int boundary = atStart ? step : step + 1;
  stageParams.contactScreen = *screen_;
  stageParams.contactScreen->slot = boundary;
  screened_[std::size_t(boundary)] = true;
}

std::vector<std::int64_t> GpuEngine::contactCounts() {
  if (!screen_ || screened_.empty()) return {};
  const std::vector<GLuint> words = contactFlags_.read(screened_.size());
  std::vector<std::int64_t> counts(words.begin(), words.end());
  if (exchange_) ranks().maximum(counts);  // each rank's passes screened its own bodies
  return counts;
}

std::vector<ContactScreen> GpuEngine::contactScreens() {
  std::vector<ContactScreen> screens;
  const std::vector<std::int64_t> found = contactCounts();
  for (std::size_t b = 0; b < found.size(); ++b)
    screens.push_back(!screened_[b]  ? ContactScreen::unscreened
                      : found[b] > 0 ? ContactScreen::possible
                                     : ContactScreen::clear);
  return screens;
}

ContactScreen GpuEngine::screenCurrentState(const StepParams& params) {
  if (!screen_) return ContactScreen::unscreened;
  StepParams screening = params;
  screening.contactScreen = *screen_;
  screening.contactScreen->slot = 0;
  beginContactScreens(0);
  screened_[0] = true;
  evaluateCurrentForce(screening);
  return contactScreens()[0];
}

void GpuEngine::keepState() {
  checkGathered();
  textures_.keep();
}

void GpuEngine::restoreKeptState() {
  textures_.restoreKept();
  held_.reset();
  ungathered_ = false;  // each rank takes its rows of the state restored at the next step
  reusedForce_.forget();
}

}  // namespace nbody
